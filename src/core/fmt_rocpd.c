/*
** fmt_rocpd.c -- format "rocpd": the SQLite databases of AMD's profilers.
**
**  - rocpd, what rocprofv3 (ROCm 7) writes by default (%hostname%/%pid%_results.db):
**    tables rocpd_<kind><uuid> (rocpd_kernel_dispatch, rocpd_info_kernel_symbol,
**    rocpd_track, rocpd_timestamp, rocpd_event, rocpd_string, rocpd_info_agent,
**    rocpd_region, rocpd_memory_copy; schema 3), the uuid suffix shared by the
**    tables of one process.  A database merged from several processes holds
**    several suffixes: each set is read and the rows put together.  Views
**    (`kernels`, `regions`, ...) are not used (views are off, as for every
**    untrusted database): the reader joins the tables itself.
**  - the KERN table of rocprof v1/v2's SQLite output (the per-dispatch
**    results.csv as a table: KernelName, gpu-id, queue-id, grd, wgr, lds, scr,
**    arch_vgpr, accum_vgpr, sgpr, DispatchNs, BeginNs, EndNs, ...).
**
** Both through the same libsqlite3 path as nsys (sqlitedb.h): read-only,
** immutable, tables and columns found at run time.  Tables: kernels (+
** kernel_summary), runtime (HIP/HSA API regions), memcpy, devices.
*/
#include "format.h"
#include "kernsum.h"
#include "rocm.h"
#include "scan.h"
#include "sqlitedb.h"

#include <stdlib.h>
#include <string.h>

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

const pl_coldef pl_rocm_kernel_cols[AK_NCOLS] = {
  { "name", PL_STR, NULL },
  { "short_name", PL_STR, NULL },
  { "start_ns", PL_INT, NULL },
  { "end_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, NULL },
  { "launch_ns", PL_INT, NULL },
  { "device", PL_INT, NULL },
  { "device_name", PL_STR, NULL },
  { "stream", PL_INT, "HSA queue id" },
  { "correlation", PL_INT, NULL },
  { "pid", PL_INT, "process id" },
  { "tid", PL_INT, "thread id of the dispatching thread" },
  { "grid_x", PL_INT, "grid size x in workgroups (work-items / workgroup size, rounded up)" },
  { "grid_y", PL_INT, NULL },
  { "grid_z", PL_INT, NULL },
  { "block_x", PL_INT, "workgroup size x (work-items)" },
  { "block_y", PL_INT, NULL },
  { "block_z", PL_INT, NULL },
  { "grid_items_x", PL_INT, "grid size x in work-items (as the tool records it)" },
  { "grid_items_y", PL_INT, "grid size y in work-items" },
  { "grid_items_z", PL_INT, "grid size z in work-items" },
  { "registers", PL_INT, "architected VGPRs per work-item (= arch_vgpr)" },
  { "arch_vgpr", PL_INT, "architected VGPRs per work-item" },
  { "accum_vgpr", PL_INT, "accumulation VGPRs (AGPRs) per work-item" },
  { "sgpr", PL_INT, "SGPRs per wave" },
  { "smem_static_bytes", PL_INT, "LDS (group segment) bytes per workgroup" },
  { "scratch_bytes", PL_INT, "scratch (private segment) bytes per work-item" },
  { "wave_size", PL_INT, "wavefront size" },
  { "dispatch_id", PL_INT, "the tool's dispatch id / index" },
};
const pl_coldef pl_rocm_runtime_cols[AR_NCOLS] = {
  { "name", PL_STR, NULL },        { "start_ns", PL_INT, NULL },
  { "end_ns", PL_INT, NULL },      { "duration_ns", PL_INT, NULL },
  { "correlation", PL_INT, NULL }, { "cat", PL_STR, "tracing domain (HIP_RUNTIME_API, HSA_CORE_API, ...)" },
  { "pid", PL_INT, "process id" }, { "tid", PL_INT, "thread id" },
};
const pl_coldef pl_rocm_memcpy_cols[AM_NCOLS] = {
  { "name", PL_STR, "copy operation as the tool names it (MEMORY_COPY_HOST_TO_DEVICE)" },
  { "kind", PL_STR, "direction: HtoD, DtoH, DtoD, HtoH" },
  { "start_ns", PL_INT, NULL },
  { "end_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, NULL },
  { "device", PL_INT, "GPU index of the copy (destination GPU, else source)" },
  { "stream", PL_INT, "HSA queue id, where recorded" },
  { "correlation", PL_INT, NULL },
  { "pid", PL_INT, "process id" },
  { "bytes", PL_INT, "bytes copied" },
  { "src_kind", PL_STR, "source agent type (CPU or GPU)" },
  { "dst_kind", PL_STR, "destination agent type" },
};

static int64_t ceil_div(int64_t a, int64_t b) {
  if (a == PL_INT_NA || b == PL_INT_NA || b <= 0 || a < 0) return PL_INT_NA;
  return a / b + (a % b != 0);
}

void pl_rocm_kernel_finish(pl_cell *v) {
  for (int i = 0; i < 3; i++) v[AK_GX + i].i = ceil_div(v[AK_GIX + i].i, v[AK_BX + i].i);
  int64_t a = v[AK_START].i, b = v[AK_END].i, d;
  v[AK_DUR].i = (a != PL_INT_NA && b != PL_INT_NA && b >= a && !__builtin_sub_overflow(b, a, &d)) ? d : PL_INT_NA;
  v[AK_REGS].i = v[AK_VGPR].i;
}

const char *pl_rocm_copy_kind(const char *s, size_t n) {
  static const char *const K[][2] = { { "HOST_TO_DEVICE", "HtoD" },
                                      { "DEVICE_TO_HOST", "DtoH" },
                                      { "DEVICE_TO_DEVICE", "DtoD" },
                                      { "HOST_TO_HOST", "HtoH" } };
  for (size_t i = 0; i < NCOLS(K); i++)
    if (s && pl_find(s, n, K[i][0])) return K[i][1];
  return NULL;
}

void pl_rocm_add_kernels(pl_profile *p, const pl_parse_opts *o, pl_table *k) {
  if (!k) return;
  pl_fill_short_names(k, pl_table_col(k, "name"));
  if (pl_want_table(o, "kernel_summary")) {
    pl_table *s = pl_kernel_summary_from(k, "kernel_summary");
    if (s) pl_profile_add_table(p, s);
  }
  pl_profile_add_table(p, k);
}

/* ---- helpers ------------------------------------------------------------ */
typedef struct rp {
  pl_sqlite x;
  pl_table *kn, *rt, *mc;
  size_t nsets;
} rp;

static int has_table(pl_sqlite *x, const char *name) {
  for (size_t i = 0; i < x->ntabs; i++)
    if (strcmp(x->tabs[i], name) == 0) return 1;
  return 0;
}

/* "<base><suffix>" when the database has it, else NULL (static buffer per slot). */
static const char *tab(pl_sqlite *x, const char *base, const char *suffix, char *buf, size_t n) {
  snprintf(buf, n, "%s%s", base, suffix);
  return has_table(x, buf) ? buf : NULL;
}

static int has_col(pl_sqlite *x, const char *table, const char *col) {
  char **c;
  size_t n;
  if (!table || pl_sqlite_cols(x, table, &c, &n)) return 0;
  int f = 0;
  for (size_t i = 0; i < n && !f; i++) f = strcmp(c[i], col) == 0;
  pl_sqlite_free_cols(c, n);
  return f;
}

/* "A.col" when table has col, else "NULL" */
static void colref(pl_buf *q, pl_sqlite *x, const char *table, const char *alias, const char *col) {
  if (table && has_col(x, table, col)) {
    pl_buf_printf(q, "%s.", alias);
    pl_sqlite_quote(q, col);
  } else pl_buf_adds(q, "NULL");
}

static void join(pl_buf *q, const char *table, const char *alias, const char *on) {
  if (!table) return;
  pl_buf_adds(q, " LEFT JOIN ");
  pl_sqlite_quote(q, table);
  pl_buf_printf(q, " %s ON %s", alias, on);
}

static int prepare(pl_sqlite *x, pl_buf *q, sqlite3_stmt **st) {
  pl_buf_addc(q, '\0');
  int rc = sqlite3_prepare_v2(x->db, q->data, -1, st, NULL);
  pl_buf_free(q);
  return rc == SQLITE_OK ? 0 : pl_sqlite_fail(x, rc);
}

static int64_t gpu_index(sqlite3_stmt *st, int type_index, int abs_index, int id) {
  int64_t v = pl_sqlite_int(st, type_index);
  if (v == PL_INT_NA) v = pl_sqlite_int(st, abs_index);
  if (v == PL_INT_NA) v = pl_sqlite_int(st, id);
  return v;
}

/* ---- rocpd (one uuid suffix) -------------------------------------------- */
static int rocpd_kernels(rp *r, const char *sfx) {
  pl_sqlite *x = &r->x;
  char b1[256], b2[256], b3[256], b4[256], b5[256], b6[256];
  const char *K = tab(x, "rocpd_kernel_dispatch", sfx, b1, sizeof b1);
  if (!K || !r->kn) return 0;
  const char *T = tab(x, "rocpd_track", sfx, b2, sizeof b2), *A = tab(x, "rocpd_info_agent", sfx, b3, sizeof b3);
  const char *S = tab(x, "rocpd_info_kernel_symbol", sfx, b4, sizeof b4),
             *TS = tab(x, "rocpd_timestamp", sfx, b5, sizeof b5);
  const char *E = tab(x, "rocpd_event", sfx, b6, sizeof b6);
  int direct = has_col(x, K, "start"); /* times in the dispatch row itself */
  if (!(T && has_col(x, K, "track_id"))) T = NULL;
  if (!(T && A && has_col(x, T, "agent_id"))) A = NULL;
  if (!(S && has_col(x, K, "kernel_id"))) S = NULL;
  if (!(E && has_col(x, K, "event_id"))) E = NULL;
  if (!direct && !TS) {
    pl_err_set(x->err, 0, 0,
               "expected a rocpd_timestamp%s table beside %s (its start_id / end_id), found none: "
               "the rocpd database is incomplete",
               sfx, K);
    x->err->offset = 0;
    return -1;
  }
  pl_buf q;
  pl_buf_init(&q);
  pl_buf_adds(&q, "SELECT ");
  colref(&q, x, S, "S", "display_name");
  pl_buf_adds(&q, ", ");
  colref(&q, x, S, "S", "kernel_name");
  pl_buf_adds(&q, ", ");
  if (direct) pl_buf_adds(&q, "K.\"start\", K.\"end\", ");
  else pl_buf_adds(&q, "DS.\"value\", DE.\"value\", ");
  colref(&q, x, A, "A", "type_index");
  pl_buf_adds(&q, ", ");
  colref(&q, x, A, "A", "absolute_index");
  pl_buf_adds(&q, ", ");
  colref(&q, x, T, "T", "agent_id");
  pl_buf_adds(&q, ", ");
  colref(&q, x, A, "A", "product_name");
  pl_buf_adds(&q, ", ");
  colref(&q, x, T, "T", "queue_id");
  pl_buf_adds(&q, ", ");
  colref(&q, x, E, "E", "correlation_id");
  pl_buf_adds(&q, ", ");
  colref(&q, x, T, "T", "pid");
  pl_buf_adds(&q, ", ");
  colref(&q, x, T, "T", "tid");
  pl_buf_adds(&q, ", ");
  static const char *const KC[] = { "grid_size_x",        "grid_size_y",          "grid_size_z",
                                    "workgroup_size_x",   "workgroup_size_y",     "workgroup_size_z",
                                    "group_segment_size", "private_segment_size", "dispatch_id" };
  for (size_t i = 0; i < NCOLS(KC); i++) {
    colref(&q, x, K, "K", KC[i]);
    pl_buf_adds(&q, ", ");
  }
  colref(&q, x, S, "S", "arch_vgpr_count");
  pl_buf_adds(&q, ", ");
  colref(&q, x, S, "S", "accum_vgpr_count");
  pl_buf_adds(&q, ", ");
  colref(&q, x, S, "S", "sgpr_count");
  pl_buf_adds(&q, ", ");
  colref(&q, x, S, "S", "group_segment_size");
  pl_buf_adds(&q, ", ");
  colref(&q, x, A, "A", "name");
  pl_buf_adds(&q, " FROM ");
  pl_sqlite_quote(&q, K);
  pl_buf_adds(&q, " K");
  join(&q, T, "T", "T.id = K.track_id");
  join(&q, A, "A", "A.id = T.agent_id");
  join(&q, S, "S", "S.id = K.kernel_id");
  if (!direct) {
    join(&q, TS, "DS", "DS.id = K.start_id");
    join(&q, TS, "DE", "DE.id = K.end_id");
  }
  join(&q, E, "E", "E.id = K.event_id");
  pl_buf_adds(&q, direct ? " ORDER BY K.\"start\"" : " ORDER BY DS.\"value\"");
  sqlite3_stmt *st;
  x->where = K;
  if (prepare(x, &q, &st)) return -1;
  pl_cell v[AK_NCOLS];
  int rc;
  while (pl_sqlite_step(x, st, &rc)) {
    v[AK_NAME].s = pl_sqlite_text(x, st, 0);
    if (!v[AK_NAME].s) v[AK_NAME].s = pl_sqlite_text(x, st, 1);
    v[AK_SHORT].s = 0;
    v[AK_START].i = pl_sqlite_int(st, 2);
    v[AK_END].i = pl_sqlite_int(st, 3);
    v[AK_LAUNCH].i = PL_INT_NA;
    v[AK_DEV].i = gpu_index(st, 4, 5, 6);
    v[AK_DEVNAME].s = pl_sqlite_text(x, st, 7);
    v[AK_STREAM].i = pl_sqlite_int(st, 8);
    v[AK_CORR].i = pl_sqlite_int(st, 9);
    v[AK_PID].i = pl_sqlite_int(st, 10);
    v[AK_TID].i = pl_sqlite_int(st, 11);
    for (int i = 0; i < 3; i++) {
      v[AK_GIX + i].i = pl_sqlite_int(st, 12 + i);
      v[AK_BX + i].i = pl_sqlite_int(st, 15 + i);
    }
    v[AK_LDS].i = pl_sqlite_int(st, 18);
    if (v[AK_LDS].i == PL_INT_NA) v[AK_LDS].i = pl_sqlite_int(st, 24);
    v[AK_SCRATCH].i = pl_sqlite_int(st, 19);
    v[AK_DISPATCH].i = pl_sqlite_int(st, 20);
    v[AK_VGPR].i = pl_sqlite_int(st, 21);
    v[AK_AGPR].i = pl_sqlite_int(st, 22);
    v[AK_SGPR].i = pl_sqlite_int(st, 23);
    v[AK_WAVE].i = PL_INT_NA;
    pl_rocm_kernel_finish(v);
    pl_table_append(r->kn, v);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return pl_sqlite_fail(x, rc);
  return 0;
}

/* HIP / HSA API calls: rocpd_region rows whose category is not a marker */
static int rocpd_regions(rp *r, const char *sfx) {
  pl_sqlite *x = &r->x;
  char b1[256], b2[256], b3[256], b4[256], b5[256];
  const char *R = tab(x, "rocpd_region", sfx, b1, sizeof b1);
  if (!R || !r->rt) return 0;
  const char *NS = tab(x, "rocpd_string", sfx, b2, sizeof b2), *TS = tab(x, "rocpd_timestamp", sfx, b3, sizeof b3);
  const char *T = tab(x, "rocpd_track", sfx, b4, sizeof b4), *E = tab(x, "rocpd_event", sfx, b5, sizeof b5);
  if (!NS || !TS) return 0;
  pl_buf q;
  pl_buf_init(&q);
  pl_buf_adds(&q, "SELECT NS.\"string\", DS.\"value\", DE.\"value\", ");
  colref(&q, x, E, "E", "correlation_id");
  pl_buf_adds(&q, ", ");
  pl_buf_adds(&q, E && has_col(x, E, "category_id") ? "CS.\"string\", " : "NULL, ");
  colref(&q, x, T, "T", "pid");
  pl_buf_adds(&q, ", ");
  colref(&q, x, T, "T", "tid");
  pl_buf_adds(&q, " FROM ");
  pl_sqlite_quote(&q, R);
  pl_buf_adds(&q, " R");
  join(&q, NS, "NS", "NS.id = R.name_id");
  join(&q, TS, "DS", "DS.id = R.start_id");
  join(&q, TS, "DE", "DE.id = R.end_id");
  join(&q, T, "T", "T.id = R.track_id");
  if (E) {
    join(&q, E, "E", "E.id = R.event_id");
    if (has_col(x, E, "category_id")) join(&q, NS, "CS", "CS.id = E.category_id");
  }
  pl_buf_adds(&q, " ORDER BY DS.\"value\"");
  sqlite3_stmt *st;
  x->where = R;
  if (prepare(x, &q, &st)) return -1;
  pl_cell v[AR_NCOLS];
  int rc;
  size_t markers = 0;
  while (pl_sqlite_step(x, st, &rc)) {
    const char *cat = (const char *)sqlite3_column_text(st, 4);
    if (cat && strncmp(cat, "MARKER", 6) == 0) {
      markers++;
      continue;
    }
    v[AR_NAME].s = pl_sqlite_text(x, st, 0);
    v[AR_START].i = pl_sqlite_int(st, 1);
    v[AR_END].i = pl_sqlite_int(st, 2);
    int64_t a = v[AR_START].i, b = v[AR_END].i;
    v[AR_DUR].i = a != PL_INT_NA && b != PL_INT_NA && b >= a ? b - a : PL_INT_NA;
    v[AR_CORR].i = pl_sqlite_int(st, 3);
    v[AR_CAT].s = pl_sqlite_text(x, st, 4);
    v[AR_PID].i = pl_sqlite_int(st, 5);
    v[AR_TID].i = pl_sqlite_int(st, 6);
    pl_table_append(r->rt, v);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return pl_sqlite_fail(x, rc);
  if (markers) pl_profile_diag(x->p, 0, "%s: %zu marker (roctx) ranges not read as API calls", R, markers);
  return 0;
}

static int rocpd_copies(rp *r, const char *sfx) {
  pl_sqlite *x = &r->x;
  char b1[256], b2[256], b3[256], b4[256], b5[256], b6[256];
  const char *M = tab(x, "rocpd_memory_copy", sfx, b1, sizeof b1);
  if (!M || !r->mc) return 0;
  const char *NS = tab(x, "rocpd_string", sfx, b2, sizeof b2), *TS = tab(x, "rocpd_timestamp", sfx, b3, sizeof b3);
  const char *T = tab(x, "rocpd_track", sfx, b4, sizeof b4), *E = tab(x, "rocpd_event", sfx, b5, sizeof b5);
  const char *A = tab(x, "rocpd_info_agent", sfx, b6, sizeof b6);
  if (!NS || !TS) return 0;
  pl_buf q;
  pl_buf_init(&q);
  pl_buf_adds(&q, "SELECT NS.\"string\", DS.\"value\", DE.\"value\", M.\"size\", ");
  colref(&q, x, A, "DA", "type_index");
  pl_buf_adds(&q, ", ");
  colref(&q, x, A, "DA", "type");
  pl_buf_adds(&q, ", ");
  colref(&q, x, A, "SA", "type_index");
  pl_buf_adds(&q, ", ");
  colref(&q, x, A, "SA", "type");
  pl_buf_adds(&q, ", ");
  colref(&q, x, T, "T", "queue_id");
  pl_buf_adds(&q, ", ");
  colref(&q, x, E, "E", "correlation_id");
  pl_buf_adds(&q, ", ");
  colref(&q, x, T, "T", "pid");
  pl_buf_adds(&q, " FROM ");
  pl_sqlite_quote(&q, M);
  pl_buf_adds(&q, " M");
  join(&q, NS, "NS", "NS.id = M.name_id");
  join(&q, TS, "DS", "DS.id = M.start_id");
  join(&q, TS, "DE", "DE.id = M.end_id");
  join(&q, A, "DA", "DA.id = M.dst_agent_id");
  join(&q, A, "SA", "SA.id = M.src_agent_id");
  join(&q, T, "T", "T.id = M.track_id");
  join(&q, E, "E", "E.id = M.event_id");
  pl_buf_adds(&q, " ORDER BY DS.\"value\"");
  sqlite3_stmt *st;
  x->where = M;
  if (prepare(x, &q, &st)) return -1;
  pl_cell v[AM_NCOLS];
  int rc;
  while (pl_sqlite_step(x, st, &rc)) {
    v[AM_NAME].s = pl_sqlite_text(x, st, 0);
    size_t n = 0;
    const char *s = v[AM_NAME].s ? pl_pool_str(x->pool, v[AM_NAME].s, &n) : NULL;
    const char *kind = pl_rocm_copy_kind(s, n);
    v[AM_KIND].s = kind ? pl_pool_intern(x->pool, kind, strlen(kind)) : 0;
    v[AM_START].i = pl_sqlite_int(st, 1);
    v[AM_END].i = pl_sqlite_int(st, 2);
    int64_t a = v[AM_START].i, b = v[AM_END].i;
    v[AM_DUR].i = a != PL_INT_NA && b != PL_INT_NA && b >= a ? b - a : PL_INT_NA;
    v[AM_BYTES].i = pl_sqlite_int(st, 3);
    const char *dt = (const char *)sqlite3_column_text(st, 5);
    v[AM_DEV].i = dt && strcmp(dt, "GPU") == 0 ? pl_sqlite_int(st, 4) : pl_sqlite_int(st, 6);
    v[AM_DST].s = pl_sqlite_text(x, st, 5);
    v[AM_SRC].s = pl_sqlite_text(x, st, 7);
    v[AM_STREAM].i = pl_sqlite_int(st, 8);
    v[AM_CORR].i = pl_sqlite_int(st, 9);
    v[AM_PID].i = pl_sqlite_int(st, 10);
    pl_table_append(r->mc, v);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return pl_sqlite_fail(x, rc);
  return 0;
}

/* the GPU agents as a devices table, and the profile's device/arch when one model */
static int rocpd_devices(rp *r, const char *sfx, pl_table *dv) {
  pl_sqlite *x = &r->x;
  char b1[256];
  const char *A = tab(x, "rocpd_info_agent", sfx, b1, sizeof b1);
  if (!A || !dv) return 0;
  static const char *const W[] = { "type_index", "absolute_index", "product_name", "name", "type" };
  sqlite3_stmt *st;
  if (pl_sqlite_select(x, A, W, NCOLS(W), "ORDER BY 1", &st, NULL)) return -1;
  int rc, cid = pl_table_col(dv, "id"), cn = pl_table_col(dv, "name"), ca = pl_table_col(dv, "arch");
  while (pl_sqlite_step(x, st, &rc)) {
    const char *ty = (const char *)sqlite3_column_text(st, 4);
    if (!ty || strcmp(ty, "GPU") != 0) continue;
    int64_t id = pl_sqlite_int(st, 0);
    if (id == PL_INT_NA) id = pl_sqlite_int(st, 1);
    pl_row_put_int(dv, cid, id);
    uint32_t pn = pl_sqlite_text(x, st, 2), gn = pl_sqlite_text(x, st, 3);
    if (pn) pl_row_put_strid(dv, cn, pn);
    if (gn) pl_row_put_strid(dv, ca, gn);
    pl_row_end(dv);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return pl_sqlite_fail(x, rc);
  return 0;
}

/* ---- rocprof v1/v2 KERN table ---------------------------------------------- */
/* A KernelName cell: rocprof's SQLite output keeps the name as its CSV
** wrote it, between double quotes ("\"k.kd\"", one quote when the CSV field
** was cut); the quotes are not part of the name (interned in x->pool). */
static uint32_t kern_name(pl_sqlite *x, sqlite3_stmt *st, int i) {
  if (sqlite3_column_type(st, i) != SQLITE_TEXT) return 0;
  const char *v = (const char *)sqlite3_column_text(st, i);
  if (!v) return 0;
  size_t n = (size_t)sqlite3_column_bytes(st, i);
  if (n > 0 && v[0] == '"') {
    v++;
    n--;
    if (n > 0 && v[n - 1] == '"') n--;
  }
  return pl_pool_intern(x->pool, v, n);
}

static int read_kern(rp *r) {
  pl_sqlite *x = &r->x;
  if (!r->kn) return 0;
  static const char *const W[] = { "KernelName", "gpu-id",     "queue-id", "pid",       "tid",        "grd",
                                   "wgr",        "lds",        "scr",      "arch_vgpr", "accum_vgpr", "sgpr",
                                   "wave_size",  "DispatchNs", "BeginNs",  "EndNs",     "Index",      "vgpr" };
  sqlite3_stmt *st;
  uint64_t have = 0;
  if (pl_sqlite_select(x, "KERN", W, NCOLS(W), "ORDER BY \"BeginNs\"", &st, &have)) return -1;
  if (!(have & 1)) {
    sqlite3_finalize(st);
    pl_err_set(x->err, 0, 0, "expected a KernelName column in rocprof's KERN table, found none");
    x->err->offset = 0;
    return -1;
  }
  if (!(have & (1u << 14)))
    pl_profile_diag(x->p, 0,
                    "KERN: no BeginNs / EndNs columns (rocprof run without timestamps): kernels have no times");
  pl_cell v[AK_NCOLS];
  int rc;
  while (pl_sqlite_step(x, st, &rc)) {
    v[AK_NAME].s = kern_name(x, st, 0);
    v[AK_SHORT].s = 0;
    v[AK_DEV].i = pl_sqlite_int(st, 1);
    v[AK_DEVNAME].s = 0;
    v[AK_STREAM].i = pl_sqlite_int(st, 2);
    v[AK_CORR].i = PL_INT_NA;
    v[AK_PID].i = pl_sqlite_int(st, 3);
    v[AK_TID].i = pl_sqlite_int(st, 4);
    v[AK_GIX].i = pl_sqlite_int(st, 5);
    v[AK_GIY].i = PL_INT_NA;
    v[AK_GIZ].i = PL_INT_NA;
    v[AK_BX].i = pl_sqlite_int(st, 6);
    v[AK_BY].i = PL_INT_NA;
    v[AK_BZ].i = PL_INT_NA;
    v[AK_LDS].i = pl_sqlite_int(st, 7);
    v[AK_SCRATCH].i = pl_sqlite_int(st, 8);
    v[AK_VGPR].i = pl_sqlite_int(st, 9);
    if (v[AK_VGPR].i == PL_INT_NA) v[AK_VGPR].i = pl_sqlite_int(st, 17);
    v[AK_AGPR].i = pl_sqlite_int(st, 10);
    v[AK_SGPR].i = pl_sqlite_int(st, 11);
    v[AK_WAVE].i = pl_sqlite_int(st, 12);
    v[AK_LAUNCH].i = pl_sqlite_int(st, 13);
    v[AK_START].i = pl_sqlite_int(st, 14);
    v[AK_END].i = pl_sqlite_int(st, 15);
    v[AK_DISPATCH].i = pl_sqlite_int(st, 16);
    pl_rocm_kernel_finish(v);
    pl_table_append(r->kn, v);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return pl_sqlite_fail(x, rc);
  return 0;
}

static const pl_coldef DV_COLS[] = {
  { "id", PL_INT, "GPU index (rocpd_info_agent.type_index)" },
  { "name", PL_STR, NULL },
  { "arch", PL_STR, "GPU architecture (gfx target)" },
};

/* the uuid suffixes of the rocpd tables: what follows "rocpd_kernel_dispatch",
** "rocpd_region" or "rocpd_memory_copy" in a table name */
static size_t suffixes(pl_sqlite *x, char ***out) {
  static const char *const B[] = { "rocpd_kernel_dispatch", "rocpd_region", "rocpd_memory_copy", "rocpd_info_agent" };
  char **s = NULL;
  size_t n = 0;
  for (size_t i = 0; i < x->ntabs; i++) {
    for (size_t b = 0; b < NCOLS(B); b++) {
      size_t bl = strlen(B[b]);
      const char *t = x->tabs[i];
      if (strncmp(t, B[b], bl) != 0 || (t[bl] != '\0' && t[bl] != '_')) continue;
      const char *sf = t + bl;
      int dup = 0;
      for (size_t k = 0; k < n && !dup; k++) dup = strcmp(s[k], sf) == 0;
      if (!dup) {
        s = pl_xrealloc(s, (n + 1) * sizeof *s);
        s[n++] = pl_xstrdup(sf);
      }
    }
  }
  *out = s;
  return n;
}

int pl_rocpd_is_rocprof_db(pl_sqlite *x) {
  if (has_table(x, "KERN")) return 1;
  for (size_t i = 0; i < x->ntabs; i++)
    if (strncmp(x->tabs[i], "rocpd_", 6) == 0) return 1;
  return 0;
}

static int rocpd_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  rp r;
  memset(&r, 0, sizeof r);
  pl_sqlite *x = &r.x;
  x->in = in;
  x->p = p;
  x->o = o;
  x->err = err;
  x->pool = pl_pool_new();
  x->redo = "re-run rocprofv3 or rocprof";
  pl_buf_init(&x->text);
  pl_table *dv = NULL;
  int rc = -1;
  char **sf = NULL;
  size_t nsf = 0;
  if (pl_sqlite_open(x)) goto done;
  if (!pl_rocpd_is_rocprof_db(x)) {
    pl_buf b;
    pl_buf_init(&b);
    for (size_t i = 0; i < x->ntabs && i < 8; i++) pl_buf_printf(&b, "%s%s", i ? ", " : "", x->tabs[i]);
    if (x->ntabs > 8) pl_buf_printf(&b, ", ... (%zu in all)", x->ntabs);
    pl_buf_addc(&b, '\0');
    pl_err_set(err, 0, 0,
               "expected a rocprofv3 rocpd database (rocpd_* tables) or rocprof's KERN table, "
               "found a SQLite database of another program (tables: %s)",
               x->ntabs ? b.data : "none");
    err->offset = 0;
    pl_buf_free(&b);
    goto done;
  }
  r.kn = pl_table_declare(o, "kernels", x->pool, pl_rocm_kernel_cols, AK_NCOLS, NULL);
  r.rt = pl_table_declare(o, "runtime", x->pool, pl_rocm_runtime_cols, AR_NCOLS, NULL);
  r.mc = pl_table_declare(o, "memcpy", x->pool, pl_rocm_memcpy_cols, AM_NCOLS, NULL);
  dv = pl_table_declare(o, "devices", x->pool, DV_COLS, NCOLS(DV_COLS), NULL);
  if (has_table(x, "KERN")) {
    if (read_kern(&r)) goto done;
    pl_profile_meta_str(p, "tool", "rocprof", 7);
    pl_profile_meta_str(p, "rocprof_file", "KERN", 4);
  } else {
    nsf = suffixes(x, &sf);
    int kd = 0;
    for (size_t i = 0; i < x->ntabs; i++) kd |= strncmp(x->tabs[i], "rocpd_kernel_dispatch", 21) == 0;
    if (!kd) {
      /* rocpd_* tables but no dispatch table: nothing ran on a GPU, or a cut file */
      pl_profile_diag(p, 0,
                      "no rocpd_kernel_dispatch table: the capture holds no kernel dispatches "
                      "(rocprofv3 run without --kernel-trace, or no kernel ran)");
    }
    for (size_t i = 0; i < nsf; i++) {
      if (rocpd_kernels(&r, sf[i]) || rocpd_regions(&r, sf[i]) || rocpd_copies(&r, sf[i]) ||
          rocpd_devices(&r, sf[i], dv))
        goto done;
    }
    pl_profile_meta_str(p, "tool", "rocprofv3 (rocpd)", 17);
    if (nsf > 1)
      pl_profile_diag(p, 0, "%zu rocpd table sets (a database merged from %zu processes): rows of all put together",
                      nsf, nsf);
  }
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  if (dv && dv->nrows > 0) {
    size_t n;
    const char *s;
    int cn = pl_table_col(dv, "name"), ca = pl_table_col(dv, "arch");
    int one = 1;
    for (size_t i = 1; i < dv->nrows; i++)
      if (dv->cols[cn]->v.str[i] != dv->cols[cn]->v.str[0]) one = 0;
    if (one && (s = pl_cell_str(dv, cn, 0, &n))) pl_profile_meta_str(p, "device", s, n);
    if (one && (s = pl_cell_str(dv, ca, 0, &n))) pl_profile_meta_str(p, "arch", s, n);
  }
  if (r.kn) {
    pl_rocm_add_kernels(p, o, r.kn);
    r.kn = NULL;
  }
  if (r.rt && r.rt->nrows > 0) {
    pl_profile_add_table(p, r.rt);
    r.rt = NULL;
  }
  if (r.mc && r.mc->nrows > 0) {
    pl_profile_add_table(p, r.mc);
    r.mc = NULL;
  }
  if (dv && dv->nrows > 0) {
    pl_profile_add_table(p, dv);
    dv = NULL;
  }
  rc = 0;
done:
  pl_table_free(r.kn);
  pl_table_free(r.rt);
  pl_table_free(r.mc);
  pl_table_free(dv);
  for (size_t i = 0; i < nsf; i++) free(sf[i]);
  free(sf);
  pl_sqlite_close(x);
  pl_pool_release(x->pool);
  if (rc == 0 && o && o->progress) o->progress(o->progress_ud, in->len, in->len);
  return rc;
}

static int rocpd_detect(const char *data, size_t len) {
  if (len < 100 || memcmp(data, "SQLite format 3", 16) != 0) return 0;
  /* the schema text sits in the first pages */
  if (pl_find(data, len, "rocpd_kernel_dispatch") || pl_find(data, len, "rocpd_string") ||
      pl_find(data, len, "CREATE TABLE KERN (") || pl_find(data, len, "CREATE TABLE \"KERN\""))
    return 100;
  return 0;
}

const pl_format pl_fmt_rocpd = {
  "rocpd",
  "AMD rocprofv3 rocpd SQLite database (ROCm 7 default output, schema 3) and rocprof v1/v2 KERN SQLite, "
  "read-only through libsqlite3",
  "kernels kernel_summary runtime memcpy devices",
  rocpd_detect,
  rocpd_parse,
};

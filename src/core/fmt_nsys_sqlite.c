/*
** fmt_nsys_sqlite.c -- format "nsys-sqlite": the SQLite database written by
** `nsys export --type sqlite` (Nsight Systems 2021 .. 2026, schema 2.x/3.x).
**
** Read through libsqlite3, never written: a file is opened read-only and
** immutable (file:PATH?immutable=1, so no journal, lock or WAL file is
** made); an input held only in memory (inflated .gz, a pipe, the fuzzer) is
** handed to SQLite with sqlite3_deserialize, read-only.  Defensive settings
** are on in both cases (SQLITE_DBCONFIG_DEFENSIVE, untrusted schema, cell
** size checks), since the bytes come from anywhere.
**
** Tables and columns are found at run time (sqlite_master, PRAGMA
** table_info): each query names the columns the export has and NULL for
** the others, so the 2021 layout (TARGET_INFO_CUDA_GPU, no mangledName), the
** 2022 one (EXPORT_META_DATA, no ENUM_ tables), 2023+ (META_DATA_EXPORT,
** ENUM_*) and later additions and _V2/_V3 table suffixes all read with the
** same code.  Absent tables are normal (nsys creates them lazily): a note,
** not an error.  Names are StringIds ids (or text in a few columns); each id
** is interned once.  Rows go straight from sqlite3_step into the columns.
**
** Tables: kernels, runtime, memcpy, memset, nvtx, nvtx_marks, devices,
** processes, threads, mpi_ranks, memory_events (docs: each column's doc string).  Times are
** int64 ns as nsys writes them (relative to the session start).  pid/tid
** come from nsys' global ids: pid = (g >> 24) & 0xFFFFFF, tid = g & 0xFFFFFF.
** correlationId is unique within a process only: kernels.tid is filled from
** the runtime call with the same (pid, correlation).
*/
#include "format.h"
#include "schema.h"
#include "sqlitedb.h"
#include "names.h"
#include "scan.h"
#include "intervals.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- context (sqlitedb.h: shared with the other SQLite readers) -------- */
typedef pl_sqlite_str sstr;
typedef pl_sqlite nx;

#define PID_OF(g) (((g) >> 24) & 0xFFFFFF)
#define TID_OF(g) ((g)&0xFFFFFF)

/* Byte offset of a table's root page (errors name the table's place in the
** file, as errors in binary input do: "FILE: byte N: ..."); 0 for the
** schema itself or when the schema cannot be read. */
static long long table_offset(nx *x, const char *table) {
  const unsigned char *d = (const unsigned char *)x->in->data;
  size_t page = x->in->len >= 18 ? ((size_t)d[16] << 8 | d[17]) : 0;
  if (page == 1) page = 65536;
  if (!x->db || !table || page == 0 || strcmp(table, "sqlite_master") == 0) return 0;
  sqlite3_stmt *st;
  long long off = 0;
  if (sqlite3_prepare_v2(x->db, "SELECT rootpage FROM sqlite_master WHERE name = ?1", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
      long long root = sqlite3_column_int64(st, 0);
      if (root > 0 && (unsigned long long)(root - 1) * page < x->in->len) off = (root - 1) * (long long)page;
    }
    sqlite3_finalize(st);
  }
  return off;
}

static int sql_fail(nx *x, int rc) {
  char m[512];
  snprintf(m, sizeof m, "%s", x->db ? sqlite3_errmsg(x->db) : sqlite3_errstr(rc));
  int prim = rc & 0xff;
  if (x->o && x->o->interrupt && *x->o->interrupt)
    return pl_err_set(x->err, 0, 0, "interrupted while reading %s", x->where ? x->where : "the database");
  long long off = table_offset(x, x->where);
  if (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB || prim == SQLITE_IOERR || prim == SQLITE_FORMAT)
    pl_err_set(x->err, 0, 0, "expected an intact SQLite database, found a damaged or cut one (SQLite: %s%s%s); %s", m,
               x->where ? ", reading " : "", x->where ? x->where : "",
               x->redo ? x->redo : "export the report again with `nsys export --type sqlite`");
  else pl_err_set(x->err, 0, 0, "SQLite error reading %s: %s", x->where ? x->where : "the database", m);
  x->err->offset = off;
  return -1;
}

static int interrupted(nx *x) { return x->o && x->o->interrupt && *x->o->interrupt; }

/* ---- schema discovery --------------------------------------------------- */
static int load_tables(nx *x) {
  sqlite3_stmt *st;
  x->where = "sqlite_master";
  int rc = sqlite3_prepare_v2(x->db, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name", -1, &st, NULL);
  if (rc != SQLITE_OK) return sql_fail(x, rc);
  size_t cap = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *n = (const char *)sqlite3_column_text(st, 0);
    if (!n) continue;
    if (x->ntabs == cap) {
      cap = cap ? cap * 2 : 64;
      x->tabs = pl_xrealloc(x->tabs, cap * sizeof *x->tabs);
    }
    x->tabs[x->ntabs++] = pl_xstrdup(n);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  return 0;
}

/* The table `base`, or base_Vn with the largest n (newer exports suffix
** tables whose layout changed); NULL when absent. */
static const char *find_table(nx *x, const char *base) {
  size_t bl = strlen(base);
  const char *best = NULL;
  long bestv = -1;
  for (size_t i = 0; i < x->ntabs; i++) {
    const char *t = x->tabs[i];
    if (strcmp(t, base) == 0) {
      if (bestv < 1) {
        best = t;
        bestv = 1;
      }
      continue;
    }
    if (strncmp(t, base, bl) == 0 && t[bl] == '_' && (t[bl + 1] == 'V' || t[bl + 1] == 'v') && t[bl + 2]) {
      char *end;
      long v = strtol(t + bl + 2, &end, 10);
      if (*end == '\0' && v > bestv) {
        best = t;
        bestv = v;
      }
    }
  }
  return best;
}

static int has_prefix_table(nx *x, const char *prefix) {
  size_t n = strlen(prefix);
  for (size_t i = 0; i < x->ntabs; i++)
    if (strncmp(x->tabs[i], prefix, n) == 0) return 1;
  return 0;
}

static void quote_ident(pl_buf *b, const char *s) {
  pl_buf_addc(b, '"');
  for (; *s; s++) {
    if (*s == '"') pl_buf_addc(b, '"');
    pl_buf_addc(b, *s);
  }
  pl_buf_addc(b, '"');
}

/* Columns of a table (names, malloc'd list); -1 on error. */
static int table_cols(nx *x, const char *table, char ***out, size_t *n) {
  pl_buf q;
  pl_buf_init(&q);
  pl_buf_adds(&q, "PRAGMA table_info(");
  quote_ident(&q, table);
  pl_buf_adds(&q, ")");
  pl_buf_addc(&q, '\0');
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(x->db, q.data, -1, &st, NULL);
  pl_buf_free(&q);
  *out = NULL;
  *n = 0;
  if (rc != SQLITE_OK) return sql_fail(x, rc);
  size_t cap = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *c = (const char *)sqlite3_column_text(st, 1);
    if (!c) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 32;
      *out = pl_xrealloc(*out, cap * sizeof **out);
    }
    (*out)[(*n)++] = pl_xstrdup(c);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    for (size_t i = 0; i < *n; i++) free((*out)[i]);
    free(*out);
    *out = NULL;
    *n = 0;
    return sql_fail(x, rc);
  }
  return 0;
}

static void free_cols(char **c, size_t n) {
  for (size_t i = 0; i < n; i++) free(c[i]);
  free(c);
}

/* Prepares SELECT over `want` (column names; each one the table lacks is
** NULL, so result column i is always want[i]), with an optional tail
** (WHERE/ORDER BY).  *present (optional) gets a bit per column found. */
static int select_cols(nx *x, const char *table, const char *const *want, size_t nwant, const char *tail,
                       sqlite3_stmt **st, uint64_t *present) {
  char **cols;
  size_t ncols;
  x->where = table;
  if (table_cols(x, table, &cols, &ncols)) return -1;
  pl_buf q;
  pl_buf_init(&q);
  pl_buf_adds(&q, "SELECT ");
  uint64_t bits = 0;
  for (size_t i = 0; i < nwant; i++) {
    if (i) pl_buf_adds(&q, ", ");
    int found = 0;
    for (size_t j = 0; j < ncols; j++)
      if (strcmp(cols[j], want[i]) == 0) {
        found = 1;
        break;
      }
    if (found) {
      quote_ident(&q, want[i]);
      if (i < 64) bits |= 1ull << i;
    } else pl_buf_adds(&q, "NULL");
  }
  pl_buf_adds(&q, " FROM ");
  quote_ident(&q, table);
  if (tail) {
    pl_buf_addc(&q, ' ');
    pl_buf_adds(&q, tail);
  }
  pl_buf_addc(&q, '\0');
  free_cols(cols, ncols);
  int rc = sqlite3_prepare_v2(x->db, q.data, -1, st, NULL);
  pl_buf_free(&q);
  if (rc != SQLITE_OK) return sql_fail(x, rc);
  if (present) *present = bits;
  return 0;
}

/* ---- strings ------------------------------------------------------------ */
static int load_strings(nx *x) {
  const char *t = find_table(x, "StringIds");
  if (!t) return 0;
  static const char *const W[] = { "id", "value" };
  sqlite3_stmt *st;
  if (select_cols(x, t, W, 2, "ORDER BY 1", &st, NULL)) return -1;
  size_t cap = 0;
  int rc;
  x->dense = 1;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) continue;
    const char *v = (const char *)sqlite3_column_text(st, 1);
    int n = sqlite3_column_bytes(st, 1);
    if (x->nstr == cap) {
      cap = cap ? cap * 2 : 1024;
      x->str = pl_xrealloc(x->str, cap * sizeof *x->str);
    }
    sstr *s = &x->str[x->nstr];
    s->id = sqlite3_column_int64(st, 0);
    s->off = x->text.len;
    s->n = (uint32_t)(v ? n : 0);
    s->pool = 0;
    s->strip = 0;
    if (v) pl_buf_add(&x->text, v, (size_t)n);
    if (s->id != (int64_t)x->nstr) x->dense = 0;
    x->nstr++;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  return 0;
}

static sstr *str_find(nx *x, int64_t id) {
  if (x->dense) return id >= 0 && (uint64_t)id < x->nstr ? &x->str[id] : NULL;
  size_t lo = 0, hi = x->nstr;
  while (lo < hi) {
    size_t m = (lo + hi) / 2;
    if (x->str[m].id < id) lo = m + 1;
    else hi = m;
  }
  return lo < x->nstr && x->str[lo].id == id ? &x->str[lo] : NULL;
}

/* Pool id of StringIds id (0 when unknown). */
static uint32_t str_pool(nx *x, int64_t id) {
  sstr *s = str_find(x, id);
  if (!s) return 0;
  if (!s->pool) s->pool = pl_pool_intern(x->pool, x->text.data + s->off, s->n);
  return s->pool;
}

/* A name column: a StringIds id, or (some post-processed files) text. */
static uint32_t name_cell(nx *x, sqlite3_stmt *st, int i) {
  sqlite3_value *v = sqlite3_column_value(st, i);
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return str_pool(x, sqlite3_value_int64(v));
    case SQLITE_TEXT: {
      const char *t = (const char *)sqlite3_value_text(v);
      return t ? pl_pool_intern(x->pool, t, (size_t)sqlite3_value_bytes(v)) : 0;
    }
    default: return 0;
  }
}

static uint32_t text_cell(nx *x, sqlite3_stmt *st, int i) {
  if (sqlite3_column_type(st, i) != SQLITE_TEXT) return 0;
  const char *v = (const char *)sqlite3_column_text(st, i);
  return v ? pl_pool_intern(x->pool, v, (size_t)sqlite3_column_bytes(st, i)) : 0;
}

/* One value lookup per cell: sqlite3_column_value and the sqlite3_value_*
** readers (sqlite3_column_type + sqlite3_column_int64 look the cell up twice
** and check for a malloc failure each time: a third of the load's time). */
static inline int64_t int_cell(sqlite3_stmt *st, int i) {
  sqlite3_value *v = sqlite3_column_value(st, i);
  int t = sqlite3_value_type(v);
  if (t == SQLITE_INTEGER) return sqlite3_value_int64(v);
  if (t == SQLITE_FLOAT) return pl_int_of(sqlite3_value_double(v));
  return PL_INT_NA;
}

/* "cudaLaunchKernel_v7000" -> length of "cudaLaunchKernel" (the runtime
** API's version suffix); driver names keep theirs ("cuMemcpyHtoDAsync_v2"
** is a different entry point from cuMemcpyHtoDAsync). */
static size_t strip_version(const char *s, size_t n) {
  size_t i = n;
  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') i--;
  if (i == n || i < 3 || s[i - 1] != 'v' || s[i - 2] != '_') return n;
  if (n - i < 3) return n; /* _v2, _v10: driver API versions, part of the name */
  return i - 2;
}

/* ---- tables ------------------------------------------------------------- */
typedef pl_coldef coldef;

static pl_table *make_table(nx *x, const char *name, const coldef *defs, size_t n) {
  return pl_table_declare(x->o, name, x->pool, defs, n, NULL); /* standard columns typed by the schema */
}
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* Rows of a table, from max(rowid) (a b-tree descent; nsys never deletes,
** so it is the count): a size hint for the columns, so that they are
** allocated once and faulted in by one call each (pl_table_populate)
** instead of page by page.  Capped, and 0 when unknown (a WITHOUT ROWID
** table, an error): the columns then grow as usual. */
static void reserve_rows(nx *x, pl_table *t, const char *table) {
  pl_buf q;
  pl_buf_init(&q);
  pl_buf_adds(&q, "SELECT max(rowid) FROM ");
  quote_ident(&q, table);
  pl_buf_addc(&q, '\0');
  sqlite3_stmt *st;
  int64_t n = 0;
  if (sqlite3_prepare_v2(x->db, q.data, -1, &st, NULL) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) n = int_cell(st, 0);
    sqlite3_finalize(st);
  }
  pl_buf_free(&q);
  if (n <= 0 || n == PL_INT_NA || n > ((int64_t)1 << 31)) return;
  if ((uint64_t)n > x->in->len / 8 + 1024) n = (int64_t)(x->in->len / 8 + 1024); /* a row takes bytes of the file */
  pl_table_reserve(t, (size_t)n);
  pl_table_populate(t, 0, (size_t)n);
}

static int step_row(nx *x, sqlite3_stmt *st, int *rc) {
  *rc = sqlite3_step(st);
  if (*rc != SQLITE_ROW) return 0;
  if ((++x->rows & 0xffff) == 0 && interrupted(x)) {
    *rc = SQLITE_INTERRUPT;
    return 0;
  }
  return 1;
}

static void times(pl_cell *v, int is, sqlite3_stmt *st, int s, int e) {
  int64_t a = int_cell(st, s), b = int_cell(st, e);
  v[is].i = a;
  v[is + 1].i = b;
  int64_t d;
  v[is + 2].i = (a != PL_INT_NA && b != PL_INT_NA && b >= a && !__builtin_sub_overflow(b, a, &d)) ? d : PL_INT_NA;
}

static const coldef KN_COLS[] = {
  { "name", PL_STR, "kernel name, demangled (demangledName)" },
  { "short_name", PL_STR, "nsys' short name (shortName: no return type, namespaces, templates, arguments)" },
  { "mangled_name", PL_STR, "mangled name (mangledName; missing before 2022)" },
  { "start_ns", PL_INT, NULL },
  { "end_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, NULL },
  { "device", PL_INT, "device id (deviceId)" },
  { "stream", PL_INT, NULL },
  { "context", PL_INT, NULL },
  { "correlation", PL_INT, "correlation id: unique within a process; joins the runtime call on (pid, correlation)" },
  { "pid", PL_INT, "process id of the launching process ((globalPid >> 24) & 0xFFFFFF)" },
  { "tid", PL_INT, "thread of the launching runtime call (same pid and correlation), when there is one" },
  { "grid_x", PL_INT, NULL },
  { "grid_y", PL_INT, NULL },
  { "grid_z", PL_INT, NULL },
  { "block_x", PL_INT, NULL },
  { "block_y", PL_INT, NULL },
  { "block_z", PL_INT, NULL },
  { "registers", PL_INT, "registers per thread" },
  { "smem_static_bytes", PL_INT, "static shared memory per block, bytes" },
  { "smem_dynamic_bytes", PL_INT, "dynamic shared memory per block, bytes" },
  { "smem_bytes", PL_INT, "static + dynamic shared memory per block, bytes" },
  { "smem_config_bytes", PL_INT,
    "shared memory per SM the driver configured for the launch (sharedMemoryExecuted), bytes: "
    "ncu's Shared Memory Configuration Size; missing when recorded as 0 (2022 and older GPUs)" },
  { "local_bytes_per_thread", PL_INT, "local memory per thread, bytes" },
  { "graph_id", PL_INT, "CUDA graph id (graphId, 2026+)" },
  { "graph_node_id", PL_INT, "CUDA graph node id (graphNodeId)" },
};
enum {
  KN_NAME,
  KN_SHORT,
  KN_MANGLED,
  KN_START,
  KN_END,
  KN_DUR,
  KN_DEV,
  KN_STREAM,
  KN_CTX,
  KN_CORR,
  KN_PID,
  KN_TID,
  KN_GX,
  KN_GY,
  KN_GZ,
  KN_BX,
  KN_BY,
  KN_BZ,
  KN_REGS,
  KN_SMS,
  KN_SMD,
  KN_SMEM,
  KN_SMCFG,
  KN_LOCAL,
  KN_GRAPH,
  KN_GNODE
};

static int read_kernels(nx *x, pl_table *t, const char *tab) {
  reserve_rows(x, t, tab);
  static const char *const W[] = { "demangledName",
                                   "shortName",
                                   "mangledName",
                                   "start",
                                   "end",
                                   "deviceId",
                                   "streamId",
                                   "contextId",
                                   "correlationId",
                                   "globalPid",
                                   "gridX",
                                   "gridY",
                                   "gridZ",
                                   "blockX",
                                   "blockY",
                                   "blockZ",
                                   "registersPerThread",
                                   "staticSharedMemory",
                                   "dynamicSharedMemory",
                                   "localMemoryPerThread",
                                   "graphId",
                                   "graphNodeId",
                                   "sharedMemoryExecuted" };
  sqlite3_stmt *st;
  uint64_t have = 0;
  if (select_cols(x, tab, W, NCOLS(W), NULL, &st, &have)) return -1;
  if (!(have & 2))
    pl_profile_diag(x->p, 0, "kernels: %s has no shortName column: short_name derived from the name", tab);
  pl_cell v[NCOLS(KN_COLS)];
  int rc;
  while (step_row(x, st, &rc)) {
    v[KN_NAME].s = name_cell(x, st, 0);
    v[KN_SHORT].s = name_cell(x, st, 1);
    if (!v[KN_SHORT].s && v[KN_NAME].s) {
      size_t n;
      const char *s = pl_pool_str(x->pool, v[KN_NAME].s, &n);
      char sh[1024];
      size_t sn = pl_short_name(s, n, sh, sizeof sh);
      v[KN_SHORT].s = sn ? pl_pool_intern(x->pool, sh, sn) : v[KN_NAME].s;
    }
    v[KN_MANGLED].s = name_cell(x, st, 2);
    times(v, KN_START, st, 3, 4);
    v[KN_DEV].i = int_cell(st, 5);
    v[KN_STREAM].i = int_cell(st, 6);
    v[KN_CTX].i = int_cell(st, 7);
    v[KN_CORR].i = int_cell(st, 8);
    int64_t g = int_cell(st, 9);
    v[KN_PID].i = g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
    v[KN_TID].i = PL_INT_NA;
    for (int i = 0; i < 7; i++) v[KN_GX + i].i = int_cell(st, 10 + i);
    v[KN_SMS].i = int_cell(st, 17);
    v[KN_SMD].i = int_cell(st, 18);
    int64_t sum;
    v[KN_SMEM].i = (v[KN_SMS].i != PL_INT_NA && v[KN_SMD].i != PL_INT_NA &&
                    !__builtin_add_overflow(v[KN_SMS].i, v[KN_SMD].i, &sum))
                       ? sum
                       : PL_INT_NA;
    v[KN_SMCFG].i = int_cell(st, 22);
    if (v[KN_SMCFG].i == 0) v[KN_SMCFG].i = PL_INT_NA;
    v[KN_LOCAL].i = int_cell(st, 19);
    v[KN_GRAPH].i = int_cell(st, 20);
    v[KN_GNODE].i = int_cell(st, 21);
    pl_table_append(t, v);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  return 0;
}

static const coldef RT_COLS[] = {
  { "name", PL_STR, "runtime or driver call, without the runtime API's version suffix (cudaLaunchKernel)" },
  { "raw_name", PL_STR, "the name as nsys records it (cudaLaunchKernel_v7000)" },
  { "start_ns", PL_INT, NULL },
  { "end_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, NULL },
  { "pid", PL_INT, "process id" },
  { "tid", PL_INT, "thread id" },
  { "correlation", PL_INT, "correlation id (unique within a process)" },
  { "cat", PL_STR, "cuda_runtime or cuda_driver (eventClass 0 / 1)" },
  { "driver", PL_BOOL, "true for a driver API call (cu*), false for the runtime API (cuda*)" },
  { "return_value", PL_INT, "the call's return code (0 = success)" },
};
enum { RT_NAME, RT_RAW, RT_START, RT_END, RT_DUR, RT_PID, RT_TID, RT_CORR, RT_CAT, RT_DRIVER, RT_RET };

static int read_runtime(nx *x, pl_table *t, const char *tab) {
  reserve_rows(x, t, tab);
  static const char *const W[] = {
    "nameId", "start", "end", "globalTid", "correlationId", "eventClass", "returnValue"
  };
  sqlite3_stmt *st;
  if (select_cols(x, tab, W, NCOLS(W), NULL, &st, NULL)) return -1;
  uint32_t cat_rt = pl_pool_intern(x->pool, "cuda_runtime", 12), cat_dr = pl_pool_intern(x->pool, "cuda_driver", 11);
  pl_cell v[NCOLS(RT_COLS)];
  size_t other = 0;
  int rc;
  while (step_row(x, st, &rc)) {
    int64_t cls = int_cell(st, 5);
    if (cls != PL_INT_NA && cls != 0 && cls != 1) {
      other++;
      continue;
    }
    uint32_t raw = 0, nm = 0;
    sqlite3_value *nv = sqlite3_column_value(st, 0);
    if (sqlite3_value_type(nv) == SQLITE_INTEGER) {
      sstr *s = str_find(x, sqlite3_value_int64(nv));
      if (s) {
        if (!s->pool) s->pool = pl_pool_intern(x->pool, x->text.data + s->off, s->n);
        if (!s->strip)
          s->strip = pl_pool_intern(x->pool, x->text.data + s->off, strip_version(x->text.data + s->off, s->n));
        raw = s->pool;
        nm = s->strip;
      }
    } else {
      raw = name_cell(x, st, 0);
      if (raw) {
        size_t n;
        const char *s = pl_pool_str(x->pool, raw, &n);
        nm = pl_pool_intern(x->pool, s, strip_version(s, n));
      }
    }
    v[RT_NAME].s = nm;
    v[RT_RAW].s = raw;
    times(v, RT_START, st, 1, 2);
    int64_t g = int_cell(st, 3);
    v[RT_PID].i = g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
    v[RT_TID].i = g == PL_INT_NA ? PL_INT_NA : TID_OF(g);
    v[RT_CORR].i = int_cell(st, 4);
    int drv = cls == 1;
    if (cls == PL_INT_NA && raw) {
      size_t n;
      const char *s = pl_pool_str(x->pool, raw, &n);
      drv = n > 2 && s[0] == 'c' && s[1] == 'u' && !(n > 4 && memcmp(s, "cuda", 4) == 0);
    }
    v[RT_CAT].s = drv ? cat_dr : cat_rt;
    v[RT_DRIVER].i = drv;
    v[RT_RET].i = int_cell(st, 6);
    pl_table_append(t, v);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  if (other)
    pl_profile_diag(x->p, 0,
                    "runtime: %zu rows of %s with eventClass other than 0 (runtime) and 1 (driver) not kept "
                    "(67: CUDA backtrace twins of real calls)",
                    other, tab);
  return 0;
}

/* ---- enums: id -> text, from an ENUM_ table or a built-in list --------- */
typedef struct enumap {
  char **v;
  size_t n;
} enumap;

static int load_enum(nx *x, const char *table, const char *col, enumap *m) {
  m->v = NULL;
  m->n = 0;
  const char *t = find_table(x, table);
  if (!t) return 0;
  const char *W[] = { "id", col };
  sqlite3_stmt *st;
  if (select_cols(x, t, W, 2, NULL, &st, NULL)) return -1;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = int_cell(st, 0);
    const char *s = (const char *)sqlite3_column_text(st, 1);
    if (id < 0 || id > 4096 || !s) continue;
    if ((size_t)id >= m->n) {
      m->v = pl_xrealloc(m->v, ((size_t)id + 1) * sizeof *m->v);
      for (size_t i = m->n; i <= (size_t)id; i++) m->v[i] = NULL;
      m->n = (size_t)id + 1;
    }
    free(m->v[id]);
    m->v[id] = pl_xstrdup(s);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  return 0;
}

static void free_enum(enumap *m) {
  for (size_t i = 0; i < m->n; i++) free(m->v[i]);
  free(m->v);
  m->v = NULL;
  m->n = 0;
}

static const char *enum_get(const enumap *m, int64_t id, const char *const *builtin, size_t nb) {
  if (id >= 0 && (size_t)id < m->n && m->v[id]) return m->v[id];
  if (id >= 0 && (size_t)id < nb) return builtin[id];
  return NULL;
}

/* CUpti_ActivityMemcpyKind (= ENUM_CUDA_MEMCPY_OPER ids, measured 2024.5). */
static const char *const COPY_KIND[] = { "Unknown", "HtoD", "DtoH", "HtoA", "AtoH",     "AtoA",     "AtoD",
                                         "DtoA",    "DtoD", "HtoH", "PtoP", "UVM HtoD", "UVM DtoH", "UVM DtoD" };
/* ENUM_CUDA_MEM_KIND labels (measured 2024.5: 0 pageable .. 7 unknown). */
static const char *const MEM_KIND[] = { "Pageable", "Pinned",        "Device",         "Array",
                                        "Managed",  "Device Static", "Managed Static", "Unknown" };

/* "CUDA_MEMCPY_KIND_UVM_HTOD" -> "UVM HtoD" */
static void copy_kind_text(const char *in, pl_buf *out) {
  const char *p = strncmp(in, "CUDA_MEMCPY_KIND_", 17) == 0 ? in + 17 : in;
  int first = 1;
  while (*p) {
    const char *e = strchr(p, '_');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (!first) pl_buf_addc(out, ' ');
    if (n == 4 && p[1] == 'T' && p[2] == 'O') {
      pl_buf_addc(out, p[0]);
      pl_buf_adds(out, "to");
      pl_buf_addc(out, p[3]);
    } else pl_buf_add(out, p, n);
    first = 0;
    p += n;
    if (*p == '_') p++;
  }
}

static const coldef MC_COLS[] = {
  { "name", PL_STR, "'Memcpy HtoD (Pageable -> Device)', as Kineto names copies" },
  { "kind", PL_STR, "direction: HtoD, DtoH, DtoD, PtoP, ... (copyKind via ENUM_CUDA_MEMCPY_OPER or the CUPTI list)" },
  { "start_ns", PL_INT, NULL },
  { "end_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, NULL },
  { "device", PL_INT, NULL },
  { "stream", PL_INT, NULL },
  { "context", PL_INT, "CUDA context id" } /* memset has no standard context */,
  { "correlation", PL_INT, "correlation id (unique within a process)" },
  { "pid", PL_INT, "process id" },
  { "bytes", PL_INT, "bytes copied or set" },
  { "src_kind", PL_STR, "source memory kind (Pageable, Pinned, Device, ...)" },
  { "dst_kind", PL_STR, "destination memory kind" },
};
enum {
  MC_NAME,
  MC_KIND,
  MC_START,
  MC_END,
  MC_DUR,
  MC_DEV,
  MC_STREAM,
  MC_CTX,
  MC_CORR,
  MC_PID,
  MC_BYTES,
  MC_SRC,
  MC_DST
};

/* memcpy (memset = 0) or memset (1) */
static int read_copies(nx *x, pl_table *t, const char *tab, int memset_) {
  reserve_rows(x, t, tab);
  static const char *const WC[] = { "copyKind", "srcKind",   "dstKind",       "start",     "end",  "deviceId",
                                    "streamId", "contextId", "correlationId", "globalPid", "bytes" };
  static const char *const WS[] = { "value",    "memKind",   "memKind",       "start",     "end",  "deviceId",
                                    "streamId", "contextId", "correlationId", "globalPid", "bytes" };
  enumap ck = { 0 }, mk = { 0 };
  if (!memset_ && load_enum(x, "ENUM_CUDA_MEMCPY_OPER", "name", &ck)) return -1;
  if (load_enum(x, "ENUM_CUDA_MEM_KIND", "label", &mk)) {
    free_enum(&ck);
    return -1;
  }
  sqlite3_stmt *st;
  if (select_cols(x, tab, memset_ ? WS : WC, NCOLS(WC), NULL, &st, NULL)) {
    free_enum(&ck);
    free_enum(&mk);
    return -1;
  }
  /* names per (kind, src, dst) are few: a small cache of the last ones */
  struct {
    int64_t k, s, d;
    uint32_t name, kind, src, dst;
  } cache[64];
  memset(cache, 0xff, sizeof cache);
  pl_buf b;
  pl_buf_init(&b);
  pl_cell v[NCOLS(MC_COLS)];
  int rc;
  while (step_row(x, st, &rc)) {
    int64_t k = memset_ ? 0 : int_cell(st, 0), s = int_cell(st, 1), d = int_cell(st, 2);
    unsigned slot = (unsigned)(((uint64_t)k * 31 + (uint64_t)s * 7 + (uint64_t)d) & 63);
    if (cache[slot].k != k || cache[slot].s != s || cache[slot].d != d) {
      const char *sk = enum_get(&mk, s, MEM_KIND, NCOLS(MEM_KIND)), *dk = enum_get(&mk, d, MEM_KIND, NCOLS(MEM_KIND));
      b.len = 0;
      if (memset_) {
        pl_buf_adds(&b, "Memset");
        cache[slot].kind = 0;
      } else {
        const char *kt = enum_get(&ck, k, NULL, 0);
        if (kt) copy_kind_text(kt, &b);
        else if (k >= 0 && (size_t)k < NCOLS(COPY_KIND)) pl_buf_adds(&b, COPY_KIND[k]);
        else if (k != PL_INT_NA) pl_buf_printf(&b, "kind %lld", (long long)k);
        cache[slot].kind = b.len ? pl_pool_intern(x->pool, b.data, b.len) : 0;
        size_t kl = b.len;
        b.len = 0;
        pl_buf_adds(&b, "Memcpy ");
        if (kl) {
          size_t n;
          const char *kk = pl_pool_str(x->pool, cache[slot].kind, &n);
          pl_buf_add(&b, kk, n);
        }
      }
      if (memset_ && sk) pl_buf_printf(&b, " (%s)", sk);
      else if (!memset_ && sk && dk) pl_buf_printf(&b, " (%s -> %s)", sk, dk);
      cache[slot].name = pl_pool_intern(x->pool, b.data, b.len);
      cache[slot].src = sk ? pl_pool_intern(x->pool, sk, strlen(sk)) : 0;
      cache[slot].dst = dk ? pl_pool_intern(x->pool, dk, strlen(dk)) : 0;
      cache[slot].k = k;
      cache[slot].s = s;
      cache[slot].d = d;
    }
    v[MC_NAME].s = cache[slot].name;
    v[MC_KIND].s = cache[slot].kind;
    v[MC_SRC].s = cache[slot].src;
    v[MC_DST].s = cache[slot].dst;
    times(v, MC_START, st, 3, 4);
    v[MC_DEV].i = int_cell(st, 5);
    v[MC_STREAM].i = int_cell(st, 6);
    v[MC_CTX].i = int_cell(st, 7);
    v[MC_CORR].i = int_cell(st, 8);
    int64_t g = int_cell(st, 9);
    v[MC_PID].i = g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
    v[MC_BYTES].i = int_cell(st, 10);
    pl_table_append(t, v);
  }
  sqlite3_finalize(st);
  pl_buf_free(&b);
  free_enum(&ck);
  free_enum(&mk);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  return 0;
}

/* ---- whole-graph replays (--cuda-graph-trace=graph) ---------------------- */
static const coldef GT_COLS[] = {
  { "name", PL_STR, "'CUDA graph N' (N: graphId): one row per replay of a whole graph, its kernels not recorded" },
  { "start_ns", PL_INT, "start of the replay, ns" },
  { "end_ns", PL_INT, "end of the replay, ns" },
  { "duration_ns", PL_INT, "end - start, ns" },
  { "device", PL_INT, "device id" },
  { "stream", PL_INT, "stream id" },
  { "context", PL_INT, "CUDA context id" },
  { "correlation", PL_INT, "correlation id of the graph launch call (unique within a process)" },
  { "pid", PL_INT, "process id" },
  { "graph_id", PL_INT, "CUDA graph id (graphId)" },
  { "graph_exec_id", PL_INT, "executable graph id (graphExecId)" },
};
enum { GT_NAME, GT_START, GT_END, GT_DUR, GT_DEV, GT_STREAM, GT_CTX, GT_CORR, GT_PID, GT_GRAPH, GT_EXEC };

static int read_graph_trace(nx *x, pl_table *t, const char *tab) {
  reserve_rows(x, t, tab);
  static const char *const W[] = { "start",         "end",       "deviceId", "streamId",   "contextId",
                                   "correlationId", "globalPid", "graphId",  "graphExecId" };
  sqlite3_stmt *st;
  if (select_cols(x, tab, W, NCOLS(W), NULL, &st, NULL)) return -1;
  pl_buf b;
  pl_buf_init(&b);
  pl_cell v[NCOLS(GT_COLS)];
  int64_t last_id = PL_INT_NA;
  uint32_t last_name = 0;
  int rc;
  while (step_row(x, st, &rc)) {
    times(v, GT_START, st, 0, 1);
    v[GT_DEV].i = int_cell(st, 2);
    v[GT_STREAM].i = int_cell(st, 3);
    v[GT_CTX].i = int_cell(st, 4);
    v[GT_CORR].i = int_cell(st, 5);
    int64_t g = int_cell(st, 6);
    v[GT_PID].i = g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
    v[GT_GRAPH].i = int_cell(st, 7);
    v[GT_EXEC].i = int_cell(st, 8);
    if (v[GT_GRAPH].i != last_id || !last_name) {
      b.len = 0;
      if (v[GT_GRAPH].i != PL_INT_NA) pl_buf_printf(&b, "CUDA graph %lld", (long long)v[GT_GRAPH].i);
      else pl_buf_adds(&b, "CUDA graph");
      last_name = pl_pool_intern(x->pool, b.data, b.len);
      last_id = v[GT_GRAPH].i;
    }
    v[GT_NAME].s = last_name;
    pl_table_append(t, v);
  }
  sqlite3_finalize(st);
  pl_buf_free(&b);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  return 0;
}

/* ---- NVTX --------------------------------------------------------------- */
static const coldef NV_COLS[] = {
  { "name", PL_STR, "range text (text, or textId via StringIds)" },
  { "start_ns", PL_INT, NULL },
  { "end_ns", PL_INT, "end, ns (missing for a range never closed)" },
  { "duration_ns", PL_INT, NULL },
  { "pid", PL_INT, "process id" },
  { "tid", PL_INT, "thread that opened the range" },
  { "end_tid", PL_INT, "thread that closed it (start/end ranges may end on another thread)" },
  { "domain", PL_STR, "NVTX domain name (missing: the default domain)" },
  { "domain_id", PL_INT, "NVTX domain id" },
  { "kind", PL_STR, "push_pop (nvtxRangePush/Pop, eventType 59) or start_end (nvtxRangeStart/End, 60)" },
  { "depth", PL_INT, "nesting depth on its thread: 0 outermost (ranges enclosing it on the same thread)" },
  { "category", PL_INT, "NVTX category" },
};
enum { NV_NAME, NV_START, NV_END, NV_DUR, NV_PID, NV_TID, NV_ETID, NV_DOM, NV_DOMID, NV_KIND, NV_DEPTH, NV_CAT };

static const coldef MK_COLS[] = {
  { "name", PL_STR, "mark text" },
  { "ts_ns", PL_INT, "time, ns" },
  { "pid", PL_INT, "process id" },
  { "tid", PL_INT, "thread id" },
  { "domain", PL_STR, "NVTX domain name (missing: the default domain)" },
  { "domain_id", PL_INT, "NVTX domain id" },
  { "category", PL_INT, "NVTX category" },
};
enum { MK_NAME, MK_TS, MK_PID, MK_TID, MK_DOM, MK_DOMID, MK_CAT };

typedef struct nvord {
  int64_t g, s, e;
  size_t row;
} nvord;
static int nvord_cmp(const void *a, const void *b) {
  const nvord *x = a, *y = b;
  if (x->g != y->g) return x->g < y->g ? -1 : 1;
  if (x->s != y->s) return x->s < y->s ? -1 : 1;
  if (x->e != y->e) return x->e > y->e ? -1 : 1; /* the enclosing one first */
  return x->row < y->row ? -1 : x->row > y->row;
}

/* depth: ranges of the same thread that enclose the range (sorted by start,
** longer first; a stack of the open ones' ends) */
static void nvtx_depth(pl_table *t, const int64_t *gtid) {
  size_t n = t->nrows;
  if (n == 0) return;
  nvord *o = pl_xmalloc(n * sizeof *o);
  const int64_t *s = t->cols[NV_START]->v.i64, *e = t->cols[NV_END]->v.i64;
  for (size_t i = 0; i < n; i++) {
    o[i].g = gtid[i];
    o[i].s = s[i] == PL_INT_NA ? INT64_MIN + 1 : s[i];
    o[i].e = e[i] == PL_INT_NA ? INT64_MAX : e[i];
    o[i].row = i;
  }
  qsort(o, n, sizeof *o, nvord_cmp);
  int64_t *stack = pl_xmalloc(n * sizeof *stack);
  size_t sp = 0;
  int64_t *depth = t->cols[NV_DEPTH]->v.i64;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || o[i].g != o[i - 1].g) sp = 0;
    while (sp > 0 && stack[sp - 1] <= o[i].s) sp--;
    depth[o[i].row] = (int64_t)sp;
    stack[sp++] = o[i].e;
  }
  free(stack);
  free(o);
}

static int read_nvtx(nx *x, pl_table *rt, pl_table *mt, const char *tab) {
  if (rt) reserve_rows(x, rt, tab);
  static const char *const W[] = { "eventType", "text",         "textId",   "start",   "end",
                                   "globalTid", "endGlobalTid", "domainId", "category" };
  /* event type ids: ENUM_NSYS_EVENT_TYPE when present, else the values every
  ** export measured uses */
  int64_t T_MARK = 34, T_PUSHPOP = 59, T_STARTEND = 60, T_DOMAIN = 75;
  enumap et = { 0 };
  if (load_enum(x, "ENUM_NSYS_EVENT_TYPE", "name", &et)) return -1;
  for (size_t i = 0; i < et.n; i++) {
    if (!et.v[i]) continue;
    if (strcmp(et.v[i], "NvtxMark") == 0) T_MARK = (int64_t)i;
    else if (strcmp(et.v[i], "NvtxPushPopRange") == 0) T_PUSHPOP = (int64_t)i;
    else if (strcmp(et.v[i], "NvtxStartEndRange") == 0) T_STARTEND = (int64_t)i;
    else if (strcmp(et.v[i], "NvtxDomainCreate") == 0) T_DOMAIN = (int64_t)i;
  }
  free_enum(&et);
  sqlite3_stmt *st;
  if (select_cols(x, tab, W, NCOLS(W), NULL, &st, NULL)) return -1;
  uint32_t k_pp = pl_pool_intern(x->pool, "push_pop", 8), k_se = pl_pool_intern(x->pool, "start_end", 9);
  /* domain names: from the domain-create rows, applied after the pass */
  struct dom {
    int64_t id;
    uint32_t name;
  } *doms = NULL;
  size_t ndoms = 0, capdoms = 0, other = 0;
  int64_t *gtid = NULL;
  size_t capg = 0;
  pl_cell v[NCOLS(NV_COLS)], m[NCOLS(MK_COLS)];
  int rc;
  while (step_row(x, st, &rc)) {
    int64_t ty = int_cell(st, 0);
    uint32_t name = text_cell(x, st, 1);
    if (!name && sqlite3_column_type(st, 2) == SQLITE_INTEGER) name = str_pool(x, sqlite3_column_int64(st, 2));
    int64_t g = int_cell(st, 5), dom = int_cell(st, 7);
    if (ty == T_DOMAIN) {
      if (ndoms == capdoms) {
        capdoms = capdoms ? capdoms * 2 : 8;
        doms = pl_xrealloc(doms, capdoms * sizeof *doms);
      }
      doms[ndoms].id = dom;
      doms[ndoms].name = name;
      ndoms++;
      continue;
    }
    if (ty == T_PUSHPOP || ty == T_STARTEND) {
      if (!rt) continue;
      v[NV_NAME].s = name;
      times(v, NV_START, st, 3, 4);
      v[NV_PID].i = g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
      v[NV_TID].i = g == PL_INT_NA ? PL_INT_NA : TID_OF(g);
      int64_t eg = int_cell(st, 6);
      v[NV_ETID].i = eg == PL_INT_NA ? v[NV_TID].i : TID_OF(eg);
      v[NV_DOM].s = 0;
      v[NV_DOMID].i = dom;
      v[NV_KIND].s = ty == T_PUSHPOP ? k_pp : k_se;
      v[NV_DEPTH].i = 0;
      v[NV_CAT].i = int_cell(st, 8);
      if (rt->nrows == capg) {
        capg = capg ? capg * 2 : 1024;
        gtid = pl_xrealloc(gtid, capg * sizeof *gtid);
      }
      gtid[rt->nrows] = g;
      pl_table_append(rt, v);
    } else if (ty == T_MARK) {
      if (!mt) continue;
      m[MK_NAME].s = name;
      m[MK_TS].i = int_cell(st, 3);
      m[MK_PID].i = g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
      m[MK_TID].i = g == PL_INT_NA ? PL_INT_NA : TID_OF(g);
      m[MK_DOM].s = 0;
      m[MK_DOMID].i = dom;
      m[MK_CAT].i = int_cell(st, 8);
      pl_table_append(mt, m);
    } else other++;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    free(doms);
    free(gtid);
    return sql_fail(x, rc);
  }
  /* domain names */
  pl_table *ts[2] = { rt, mt };
  int dcol[2] = { NV_DOM, MK_DOM }, icol[2] = { NV_DOMID, MK_DOMID };
  for (int k = 0; k < 2 && ndoms; k++) {
    pl_table *t = ts[k];
    if (!t) continue;
    for (size_t r = 0; r < t->nrows; r++) {
      int64_t id = t->cols[icol[k]]->v.i64[r];
      for (size_t d = 0; d < ndoms; d++)
        if (doms[d].id == id) {
          t->cols[dcol[k]]->v.str[r] = doms[d].name;
          break;
        }
    }
  }
  if (rt) nvtx_depth(rt, gtid);
  if (other)
    pl_profile_diag(
        x->p, 0,
        "nvtx: %zu rows of %s that are neither ranges nor marks (thread names, categories, payload schemas) not kept",
        other, tab);
  free(doms);
  free(gtid);
  return 0;
}

/* ---- devices ------------------------------------------------------------ */
static const coldef DV_COLS[] = {
  { "id", PL_INT, NULL },
  { "name", PL_STR, NULL },
  { "cc", PL_STR, NULL },
  { "cc_major", PL_INT, "compute capability major" },
  { "cc_minor", PL_INT, "compute capability minor" },
  { "sm_count", PL_INT, NULL },
  { "warp_size", PL_INT, "threads per warp" },
  { "max_threads_per_block", PL_INT, "max threads per block" },
  { "max_threads_per_sm", PL_INT, "max resident threads per SM (max_warps_per_sm x warp_size)" },
  { "max_warps_per_sm", PL_INT, "max resident warps per SM" },
  { "max_blocks_per_sm", PL_INT, "max resident blocks per SM" },
  { "regs_per_block", PL_INT, "32-bit registers per block" },
  { "regs_per_sm", PL_INT, "32-bit registers per SM" },
  { "smem_per_block_bytes", PL_INT, "shared memory per block, bytes" },
  { "smem_per_block_optin_bytes", PL_INT, "opt-in shared memory per block, bytes" },
  { "smem_per_sm_bytes", PL_INT, "shared memory per SM, bytes" },
  { "memory_bytes", PL_INT, NULL },
  { "clock_hz", PL_INT, "SM clock, Hz" },
  { "memory_bandwidth_bytes_per_s", PL_INT, "memory bandwidth, bytes/s" },
  { "l2_bytes", PL_INT, "L2 cache, bytes" },
};
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
  DV_BPSM,
  DV_RPB,
  DV_RPSM,
  DV_SMB,
  DV_SMBO,
  DV_SMSM,
  DV_MEM,
  DV_CLOCK,
  DV_BW,
  DV_L2
};

static int read_devices(nx *x, pl_table *t) {
  /* 2022+: TARGET_INFO_GPU with the limits; 2021: TARGET_INFO_CUDA_GPU (clock
  ** in kHz, bandwidth in kB/s) */
  static const char *const WG[] = { "id",
                                    "name",
                                    "computeMajor",
                                    "computeMinor",
                                    "smCount",
                                    "threadsPerWarp",
                                    "maxThreadsPerBlock",
                                    "maxWarpsPerSm",
                                    "maxBlocksPerSm",
                                    "maxRegistersPerBlock",
                                    "maxRegistersPerSm",
                                    "maxShmemPerBlock",
                                    "maxShmemPerBlockOptin",
                                    "maxShmemPerSm",
                                    "totalMemory",
                                    "clockRate",
                                    "memoryBandwidth",
                                    "l2CacheSize" };
  static const char *const WC[] = { "deviceId",
                                    "name",
                                    "computeCapabilityMajor",
                                    "computeCapabilityMinor",
                                    "numMultiprocessors",
                                    "numThreadsPerWarp",
                                    "maxThreadsPerBlock",
                                    "maxWarpsPerMultiprocessor",
                                    "maxBlocksPerMultiprocessor",
                                    "maxRegistersPerBlock",
                                    "maxRegistersPerMultiprocessor",
                                    "maxSharedMemoryPerBlock",
                                    "NO_SUCH_COLUMN",
                                    "maxSharedMemoryPerMultiprocessor",
                                    "globalMemorySize",
                                    "coreClockRate",
                                    "globalMemoryBandwidth",
                                    "l2CacheSize" };
  const char *tg = find_table(x, "TARGET_INFO_GPU"), *tc = find_table(x, "TARGET_INFO_CUDA_GPU");
  const char *const *W = WG;
  const char *tab = tg;
  uint64_t have = 0;
  sqlite3_stmt *st = NULL;
  int old = 0;
  if (tg) {
    if (select_cols(x, tg, WG, NCOLS(WG), NULL, &st, &have)) return -1;
    if ((have & 0x15) != 0x15) {
      sqlite3_finalize(st);
      st = NULL;
    } /* 2021: no id / computeMajor / smCount */
  }
  if (!st && tc) {
    W = WC;
    tab = tc;
    old = 1;
    if (select_cols(x, tc, WC, NCOLS(WC), NULL, &st, &have)) return -1;
  }
  (void)W;
  if (!st) {
    pl_profile_diag(
        x->p, 0,
        "devices: no TARGET_INFO_GPU table (cut or windowed export): device limits unknown; occupancy needs --gpu");
    return 0;
  }
  pl_cell v[NCOLS(DV_COLS)];
  size_t skipped = 0;
  int rc;
  while (step_row(x, st, &rc)) {
    int64_t id = int_cell(st, 0), sms = int_cell(st, 4), maj = int_cell(st, 2), mn = int_cell(st, 3);
    if (sms == 0 || (maj == 0 && (mn == 0 || mn == PL_INT_NA))) {
      skipped++;
      continue;
    } /* non-CUDA adapters */
    int dup = 0;
    for (size_t r = 0; r < t->nrows; r++)
      if (t->cols[DV_ID]->v.i64[r] == id) {
        dup = 1;
        break;
      }
    if (dup) continue; /* 2021: a row per (device, process) */
    v[DV_ID].i = id;
    v[DV_NAME].s = text_cell(x, st, 1);
    v[DV_MAJ].i = maj;
    v[DV_MIN].i = mn;
    if (maj != PL_INT_NA && mn != PL_INT_NA) {
      char cc[48];
      int n = snprintf(cc, sizeof cc, "%lld.%lld", (long long)maj, (long long)mn);
      v[DV_CC].s = pl_pool_intern(x->pool, cc, (size_t)n);
    } else v[DV_CC].s = 0;
    v[DV_SMS].i = sms;
    v[DV_WARP].i = int_cell(st, 5);
    v[DV_TPB].i = int_cell(st, 6);
    v[DV_WPSM].i = int_cell(st, 7);
    int64_t prod;
    v[DV_TPSM].i = (v[DV_WPSM].i != PL_INT_NA && v[DV_WARP].i != PL_INT_NA &&
                    !__builtin_mul_overflow(v[DV_WPSM].i, v[DV_WARP].i, &prod))
                       ? prod
                       : PL_INT_NA;
    v[DV_BPSM].i = int_cell(st, 8);
    v[DV_RPB].i = int_cell(st, 9);
    v[DV_RPSM].i = int_cell(st, 10);
    v[DV_SMB].i = int_cell(st, 11);
    v[DV_SMBO].i = int_cell(st, 12);
    v[DV_SMSM].i = int_cell(st, 13);
    v[DV_MEM].i = int_cell(st, 14);
    int64_t clk = int_cell(st, 15), bw = int_cell(st, 16);
    if (old && clk != PL_INT_NA && __builtin_mul_overflow(clk, 1000, &clk)) clk = PL_INT_NA; /* kHz */
    if (old && bw != PL_INT_NA && __builtin_mul_overflow(bw, 1000, &bw)) bw = PL_INT_NA;     /* kB/s */
    v[DV_CLOCK].i = clk;
    v[DV_BW].i = bw;
    v[DV_L2].i = int_cell(st, 17);
    for (int c = DV_WARP; c <= DV_L2; c++)
      if (v[c].i == 0) v[c].i = PL_INT_NA; /* 0: not recorded (2022: maxBlocksPerSm) */
    pl_table_append(t, v);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  if (skipped)
    pl_profile_diag(x->p, 0, "devices: %zu adapters of %s without CUDA (0 SMs or compute capability 0.0) not kept",
                    skipped, tab);
  return 0;
}

/* ---- processes, threads, MPI ranks, meta ------------------------------- */
static int read_simple(nx *x, pl_table *t, const char *tab, int kind) {
  /* kind 0: PROCESSES(globalPid, pid, name); 1: ThreadNames(globalTid, nameId,
  ** priority); 2: MPI_RANKS(globalTid, rank) */
  static const char *const WP[] = { "globalPid", "pid", "name" };
  static const char *const WT[] = { "globalTid", "nameId", "priority" };
  static const char *const WM[] = { "globalTid", "rank", "rank" };
  const char *const *W = kind == 0 ? WP : kind == 1 ? WT : WM;
  sqlite3_stmt *st;
  if (select_cols(x, tab, W, 3, NULL, &st, NULL)) return -1;
  int rc;
  while (step_row(x, st, &rc)) {
    int64_t g = int_cell(st, 0);
    pl_cell v[4];
    if (kind == 0) {
      int64_t pid = int_cell(st, 1);
      v[0].i = pid != PL_INT_NA ? pid : g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
      v[1].s = text_cell(x, st, 2);
    } else if (kind == 1) {
      v[0].i = g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
      v[1].i = g == PL_INT_NA ? PL_INT_NA : TID_OF(g);
      v[2].s = name_cell(x, st, 1);
      v[3].i = int_cell(st, 2);
    } else {
      v[0].i = g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
      v[1].i = g == PL_INT_NA ? PL_INT_NA : TID_OF(g);
      v[2].i = int_cell(st, 1);
    }
    pl_table_append(t, v);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  return 0;
}

static const coldef PR_COLS[] = { { "pid", PL_INT, "process id" }, { "name", PL_STR, "process name" } };
static const coldef TH_COLS[] = { { "pid", PL_INT, "process id" },
                                  { "tid", PL_INT, "thread id" },
                                  { "name", PL_STR, "thread name" },
                                  { "priority", PL_INT, "thread priority" } };
static const coldef MR_COLS[] = { { "pid", PL_INT, "process id" },
                                  { "tid", PL_INT, "thread id" },
                                  { "rank", PL_INT, "MPI rank of the thread" } };

static int read_meta(nx *x) {
  const char *tab = find_table(x, "META_DATA_EXPORT");
  const char *layout = "2023+ (META_DATA_EXPORT)";
  if (!tab) {
    tab = find_table(x, "EXPORT_META_DATA");
    layout = "2022 (EXPORT_META_DATA)";
  }
  if (!tab) layout = find_table(x, "TARGET_INFO_CUDA_GPU") ? "2021 (no metadata table)" : "unknown (no metadata table)";
  pl_profile_meta_str(x->p, "layout", layout, strlen(layout));
  if (!tab) return 0;
  static const char *const W[] = { "name", "value" };
  sqlite3_stmt *st;
  if (select_cols(x, tab, W, 2, NULL, &st, NULL)) return -1;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *k = (const char *)sqlite3_column_text(st, 0);
    const char *v = (const char *)sqlite3_column_text(st, 1);
    if (!k || !v) continue;
    size_t n = (size_t)sqlite3_column_bytes(st, 1);
    if (strcmp(k, "EXPORT_PRODUCT_VERSION") == 0) pl_profile_meta_str(x->p, "version", v, n);
    else if (strcmp(k, "EXPORT_SCHEMA_VERSION") == 0) pl_profile_meta_str(x->p, "schema_version", v, n);
    else if (strcmp(k, "EXPORT_PLATFORM") == 0) pl_profile_meta_str(x->p, "export_platform", v, n);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  return 0;
}

/* nsys' own warnings and errors ("No CUDA events collected ...") as
** diagnostics (severity 2 warning, 3 error; info lines are left out) */
static int read_diagnostics(nx *x) {
  const char *tab = find_table(x, "DIAGNOSTIC_EVENT");
  if (!tab) return 0;
  static const char *const W[] = { "text", "severity" };
  sqlite3_stmt *st;
  if (select_cols(x, tab, W, 2, "LIMIT 1000", &st, NULL)) return -1;
  int rc, kept = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *s = (const char *)sqlite3_column_text(st, 0);
    int64_t sev = int_cell(st, 1);
    if (!s || (sev != PL_INT_NA && sev != 2 && sev != 3) || kept >= 20) continue;
    char line[320];
    size_t n = 0;
    for (; *s && n + 1 < sizeof line; s++) { /* one line: runs of white space as one blank */
      char c = (*s == '\n' || *s == '\r' || *s == '\t') ? ' ' : *s;
      if (c == ' ' && (n == 0 || line[n - 1] == ' ')) continue;
      line[n++] = c;
    }
    while (n && line[n - 1] == ' ') n--;
    line[n] = '\0';
    pl_profile_diag(x->p, 0, "nsys %s: %s", sev == 3 ? "error" : "warning", line);
    kept++;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  return 0;
}

/* kernels.tid: the thread of the runtime call with the same (pid,
** correlation); first call wins.  Correlation ids count up within a
** process, so per process they index a dense array (one sequential pass
** each way); a process whose ids are sparse, or more than 64 processes,
** goes through an open-addressing hash table instead. */
typedef struct corrmap {
  int64_t pid, lo, hi;
  size_t n;
  uint32_t *tid;
} corrmap; /* tid + 1, 0 = none */

static void fill_kernel_tids(nx *x, pl_table *k, pl_table *rt) {
  if (!k || !rt || rt->nrows == 0 || k->nrows == 0) return;
  const int64_t *rp = rt->cols[RT_PID]->v.i64, *rc = rt->cols[RT_CORR]->v.i64, *rtid = rt->cols[RT_TID]->v.i64;
  const int64_t *kp = k->cols[KN_PID]->v.i64, *kc = k->cols[KN_CORR]->v.i64;
  int64_t *kt = k->cols[KN_TID]->v.i64;
  corrmap m[64];
  size_t nm = 0, matched = 0;
  int dense = 1;
  for (size_t r = 0; r < rt->nrows && dense; r++) {
    if (rc[r] == PL_INT_NA) continue;
    size_t i = 0;
    while (i < nm && m[i].pid != rp[r]) i++;
    if (i == nm) {
      if (nm == 64) {
        dense = 0;
        break;
      }
      m[nm].pid = rp[r];
      m[nm].lo = m[nm].hi = rc[r];
      m[nm].n = 0;
      m[nm].tid = NULL;
      nm++;
    }
    if (rc[r] < m[i].lo) m[i].lo = rc[r];
    if (rc[r] > m[i].hi) m[i].hi = rc[r];
    m[i].n++;
  }
  for (size_t i = 0; i < nm && dense; i++)
    if (m[i].lo < 0 || m[i].hi - m[i].lo > (int64_t)(4 * m[i].n + 1024)) dense = 0;
  if (dense) {
    for (size_t i = 0; i < nm; i++) m[i].tid = pl_xcalloc((size_t)(m[i].hi - m[i].lo + 1), sizeof *m[i].tid);
    size_t last = 0;
    for (size_t r = 0; r < rt->nrows; r++) {
      if (rc[r] == PL_INT_NA || rtid[r] == PL_INT_NA) continue;
      if (m[last].pid != rp[r]) {
        last = 0;
        while (m[last].pid != rp[r]) last++;
      }
      uint32_t *slot = &m[last].tid[rc[r] - m[last].lo];
      if (*slot == 0) *slot = (uint32_t)(rtid[r] + 1);
    }
    last = 0;
    for (size_t r = 0; r < k->nrows; r++) {
      if (kc[r] == PL_INT_NA) continue;
      if (m[last].pid != kp[r]) {
        last = 0;
        while (last < nm && m[last].pid != kp[r]) last++;
        if (last == nm) {
          last = 0;
          continue;
        }
      }
      if (kc[r] < m[last].lo || kc[r] > m[last].hi) continue;
      uint32_t v = m[last].tid[kc[r] - m[last].lo];
      if (v) {
        kt[r] = (int64_t)v - 1;
        matched++;
      }
    }
    for (size_t i = 0; i < nm; i++) free(m[i].tid);
  } else {
    size_t cap = 16;
    while (cap < rt->nrows * 2) cap <<= 1;
    uint32_t *h = pl_xcalloc(cap, sizeof *h); /* runtime row + 1 */
#define HK(p, c) (((uint64_t)(p)*0x9E3779B97F4A7C15ull) ^ ((uint64_t)(c)*0xC2B2AE3D27D4EB4Full))
    for (size_t r = 0; r < rt->nrows && r < UINT32_MAX - 1; r++) {
      if (rc[r] == PL_INT_NA) continue;
      size_t i = (size_t)(HK(rp[r], rc[r]) >> 7) & (cap - 1);
      while (h[i]) {
        size_t o = h[i] - 1;
        if (rp[o] == rp[r] && rc[o] == rc[r]) goto next; /* first call wins */
        i = (i + 1) & (cap - 1);
      }
      h[i] = (uint32_t)(r + 1);
    next:;
    }
    for (size_t r = 0; r < k->nrows; r++) {
      if (kc[r] == PL_INT_NA) continue;
      size_t i = (size_t)(HK(kp[r], kc[r]) >> 7) & (cap - 1);
      while (h[i]) {
        size_t o = h[i] - 1;
        if (rp[o] == kp[r] && rc[o] == kc[r]) {
          kt[r] = rtid[o];
          matched++;
          break;
        }
        i = (i + 1) & (cap - 1);
      }
    }
#undef HK
    free(h);
  }
  if (matched < k->nrows)
    pl_profile_diag(x->p, 0,
                    "kernels: %zu of %zu have no runtime call with the same (pid, correlation) "
                    "(launched before the capture window, or a call not traced): tid missing",
                    k->nrows - matched, k->nrows);
}

/* ---- memory: CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage) ---- */
static const coldef MEM_COLS[] = {
  { "ts_ns", PL_INT, "time of the allocation or free, ns" },
  { "device_type", PL_INT,
    "c10::DeviceType as Kineto writes it: 1 CUDA for device memory (device, array, managed, static), 0 CPU for "
    "pageable and pinned host memory" },
  { "device", PL_INT, "CUDA device id (-1 for host memory)" },
  { "addr", PL_INT, "virtual address of the block" },
  { "bytes", PL_INT, "bytes allocated (> 0) or freed (< 0)" },
  { "total_allocated_bytes", PL_INT,
    "running sum of bytes on this device (device_type, device) since the capture began: what cudaMalloc/cudaFree hold "
    "(blocks allocated before the capture are not counted)" },
  { "total_reserved_bytes", PL_INT, "missing: nsys records the driver's allocations, not a caching allocator's" },
  { "op", PL_STR,
    "the runtime call of the same process containing the event (cudaMalloc, cudaFree, ...), missing when none does" },
  { "pid", PL_INT, "process id" },
  { "mem_kind", PL_STR, "memKind: Pageable, Pinned, Device, Array, Managed, Device Static, Managed Static, Unknown" },
  { "correlation", PL_INT, "correlationId (0 where nsys did not link the event to its call)" },
};
enum { ME_TS, ME_DT, ME_DEV, ME_ADDR, ME_BYTES, ME_TALLOC, ME_TRES, ME_OP, ME_PID, ME_KIND, ME_CORR };

static int read_memory(nx *x, pl_table *t, const char *tab, const pl_table *rt) {
  static const char *const W[] = { "start",   "globalPid",           "deviceId",     "address", "bytes",
                                   "memKind", "memoryOperationType", "correlationId" };
  sqlite3_stmt *st;
  if (select_cols(x, tab, W, NCOLS(W), "ORDER BY start", &st, NULL)) return -1;
  uint32_t kinds[8];
  for (int k = 0; k < 8; k++) kinds[k] = pl_pool_intern(x->pool, MEM_KIND[k], strlen(MEM_KIND[k]));
  /* running sums per (device_type, device): a few devices, a small list */
  struct {
    int64_t dt, dev, sum;
  } run[64];
  size_t nrun = 0, bad = 0;
  pl_cell v[NCOLS(MEM_COLS)];
  int rc;
  while (step_row(x, st, &rc)) {
    int64_t kind = int_cell(st, 5), opty = int_cell(st, 6), b = int_cell(st, 4);
    if (b == PL_INT_NA || b < 0 || (opty != 0 && opty != 1)) {
      bad++;
      continue;
    }
    int host = kind == 0 || kind == 1;
    int64_t dt = host ? 0 : 1, dev = host ? -1 : int_cell(st, 2);
    int64_t g = int_cell(st, 1);
    v[ME_TS].i = int_cell(st, 0);
    v[ME_DT].i = dt;
    v[ME_DEV].i = dev;
    v[ME_ADDR].i = int_cell(st, 3);
    v[ME_BYTES].i = opty == 1 ? -b : b;
    size_t r = 0;
    while (r < nrun && !(run[r].dt == dt && run[r].dev == dev)) r++;
    if (r == nrun && nrun < 64) {
      run[nrun].dt = dt;
      run[nrun].dev = dev;
      run[nrun].sum = 0;
      nrun++;
    }
    if (r < nrun) {
      run[r].sum += v[ME_BYTES].i;
      v[ME_TALLOC].i = run[r].sum;
    } else v[ME_TALLOC].i = PL_INT_NA;
    v[ME_TRES].i = PL_INT_NA;
    v[ME_OP].s = 0;
    v[ME_PID].i = g == PL_INT_NA ? PL_INT_NA : PID_OF(g);
    v[ME_KIND].s = kind >= 0 && kind < 8 ? kinds[kind] : kinds[7];
    v[ME_CORR].i = int_cell(st, 7);
    pl_table_append(t, v);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(x, rc);
  if (bad)
    pl_profile_diag(x->p, 0,
                    "memory_events: %zu rows of %s without bytes or with an unknown memoryOperationType skipped", bad,
                    tab);
  /* the runtime call holding each event, by time within its process */
  if (rt && rt->nrows && t->nrows) {
    int rs = pl_table_col(rt, "start_ns"), re = pl_table_col(rt, "end_ns"), rp = pl_table_col(rt, "pid"),
        rn = pl_table_col(rt, "name");
    if (rs >= 0 && re >= 0 && rp >= 0 && rn >= 0) {
      size_t n = rt->nrows, m = t->nrows;
      int64_t *oe = pl_xmalloc(n * sizeof *oe), *out = pl_xmalloc(m * sizeof *out);
      unsigned char *oskip = pl_xmalloc(n);
      const int64_t *S = rt->cols[rs]->v.i64, *E = rt->cols[re]->v.i64, *P = rt->cols[rp]->v.i64;
      for (size_t i = 0; i < n; i++) {
        oe[i] = E[i] - 1; /* [start, end) */
        oskip[i] = S[i] == PL_INT_NA || E[i] == PL_INT_NA || E[i] <= S[i] || P[i] == PL_INT_NA;
      }
      pl_iv_innermost(S, oe, P, oskip, n, t->cols[ME_TS]->v.i64, t->cols[ME_TS]->v.i64, t->cols[ME_PID]->v.i64, NULL, m,
                      out);
      for (size_t k = 0; k < m; k++) t->cols[ME_OP]->v.str[k] = out[k] >= 0 ? rt->cols[rn]->v.str[out[k]] : 0;
      free(oe);
      free(out);
      free(oskip);
    }
  }
  return 0;
}

/* ---- header checks and opening ----------------------------------------- */
static const char SQLITE_MAGIC[16] = "SQLite format 3"; /* with its NUL */

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int check_header(nx *x) {
  const unsigned char *d = (const unsigned char *)x->in->data;
  size_t len = x->in->len;
  if (len < 100 || memcmp(d, SQLITE_MAGIC, 16) != 0) {
    pl_err_set(x->err, 0, 0, "expected a SQLite database (\"SQLite format 3\" header), found %s",
               len < 16 ? "a file too short for one" : "other bytes");
    x->err->offset = 0;
    return -1;
  }
  size_t page = ((size_t)d[16] << 8) | d[17];
  if (page == 1) page = 65536;
  if (page < 512 || (page & (page - 1))) {
    pl_err_set(x->err, 0, 0,
               "expected a SQLite page size (a power of two, 512 to 65536), found %zu: a damaged database", page);
    x->err->offset = 16;
    return -1;
  }
  uint32_t npages = be32(d + 28);
  if (npages && be32(d + 24) == be32(d + 92) && (unsigned long long)npages * page > len) {
    pl_err_set(x->err, 0, 0,
               "expected %llu bytes (%u pages of %zu, from the database header), found %zu: "
               "the export is cut short (copy it again, or %s)",
               (unsigned long long)npages * page, npages, page, len,
               x->redo ? x->redo : "re-run `nsys export --type sqlite`");
    x->err->offset = (long long)len;
    return -1;
  }
  if (len % page) {
    pl_err_set(x->err, 0, 0,
               "expected a whole number of %zu-byte pages, found %zu bytes: the export is cut short or damaged", page,
               len);
    x->err->offset = (long long)(len - len % page);
    return -1;
  }
  return 0;
}

static int file_exists(const char *path, off_t *size) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  if (size) *size = st.st_size;
  return 1;
}

/* file:PATH?immutable=1 with PATH percent-encoded where the URI needs it */
static char *file_uri(const char *path) {
  pl_buf b;
  pl_buf_init(&b);
  pl_buf_adds(&b, path[0] == '/' ? "file://" : "file:"); /* "file:///abs" (a path "//x" is no authority) */
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7f) pl_buf_printf(&b, "%%%02X", *p);
    else pl_buf_addc(&b, (char)*p);
  }
  pl_buf_adds(&b, "?immutable=1");
  pl_buf_addc(&b, '\0');
  return b.data;
}

static int progress_cb(void *ud) { return interrupted(ud); }

static int open_db(nx *x) {
  const char *path = x->o ? x->o->path : NULL;
  int rc;
  if (path) {
    /* a -wal or hot -journal beside it holds changes the file alone lacks;
    ** immutable=1 would ignore them and read a stale database */
    size_t pl = strlen(path);
    char *side = pl_xmalloc(pl + 16);
    off_t sz = 0;
    memcpy(side, path, pl);
    memcpy(side + pl, "-wal", 5);
    int wal = file_exists(side, &sz);
    if (!wal) {
      memcpy(side + pl, "-journal", 9);
      if (!file_exists(side, &sz) || sz == 0) sz = -1;
    }
    if (wal || sz > 0) {
      pl_err_set(x->err, 0, 0,
                 "expected a closed SQLite database, found %s beside it: another program has it open or "
                 "did not close it, so the file alone may lack changes; close that program (the last one to close "
                 "the database writes the log into it) and try again",
                 side);
      x->err->offset = 0;
      free(side);
      return -1;
    }
    free(side);
    char *uri = file_uri(path);
    rc = sqlite3_open_v2(uri, &x->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
  } else {
    rc = sqlite3_open_v2(":memory:", &x->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
  }
  if (rc != SQLITE_OK) return sql_fail(x, rc);
  sqlite3_db_config(x->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  sqlite3_db_config(x->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
  sqlite3_db_config(x->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
  sqlite3_db_config(x->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
  sqlite3_limit(x->db, SQLITE_LIMIT_ATTACHED, 0);
  if (x->o && x->o->interrupt) sqlite3_progress_handler(x->db, 100000, progress_cb, x);
  if (!path) {
    /* SQLite only reads a READONLY deserialized image (no FREEONCLOSE, no RESIZEABLE) */
    rc = sqlite3_deserialize(x->db, "main", (unsigned char *)(uintptr_t)x->in->data, (sqlite3_int64)x->in->len,
                             (sqlite3_int64)x->in->len, SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK) return sql_fail(x, rc);
  }
  sqlite3_exec(x->db, "PRAGMA cell_size_check=ON; PRAGMA query_only=ON", NULL, NULL, NULL);
  if (path) {
    char q[64];
    snprintf(q, sizeof q, "PRAGMA mmap_size=%llu", (unsigned long long)x->in->len);
    sqlite3_exec(x->db, q, NULL, NULL, NULL);
  }
  return 0;
}

/* ---- parse ---------------------------------------------------------------- */
static int nsys_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  nx *x = pl_xcalloc(1, sizeof *x);
  x->in = in;
  x->p = p;
  x->o = o;
  x->err = err;
  pl_buf_init(&x->text);
  x->pool = pl_pool_new();
  pl_table *kn = NULL, *rt = NULL, *mc = NULL, *ms = NULL, *nv = NULL, *mk = NULL, *dv = NULL, *pr = NULL, *th = NULL,
           *mr = NULL, *me = NULL, *gt = NULL;
  int rc = -1;
  if (check_header(x) || open_db(x) || load_tables(x)) goto done;
  if (pl_rocpd_is_rocprof_db(x)) {
    /* a rocprof database whose schema text lies past the detection window */
    extern const pl_format pl_fmt_rocpd;
    sqlite3_close(x->db);
    x->db = NULL;
    free(p->format);
    p->format = pl_xstrdup(pl_fmt_rocpd.id);
    rc = pl_fmt_rocpd.parse(in, p, o, err);
    goto done;
  }
  if (!find_table(x, "StringIds") && !has_prefix_table(x, "CUPTI_ACTIVITY_KIND_") && !find_table(x, "NVTX_EVENTS") &&
      !find_table(x, "TARGET_INFO_GPU")) {
    pl_buf b;
    pl_buf_init(&b);
    for (size_t i = 0; i < x->ntabs && i < 8; i++) pl_buf_printf(&b, "%s%s", i ? ", " : "", x->tabs[i]);
    if (x->ntabs > 8) pl_buf_printf(&b, ", ... (%zu in all)", x->ntabs);
    pl_buf_addc(&b, '\0');
    pl_err_set(err, 0, 0,
               "expected an Nsight Systems export (tables StringIds, CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, "
               "TARGET_INFO_GPU), found a SQLite database of another program (tables: %s)",
               x->ntabs ? b.data : "none");
    err->offset = 0;
    pl_buf_free(&b);
    goto done;
  }
  if (load_strings(x) || read_meta(x) || read_diagnostics(x)) goto done;
  static const char *const TABLES =
      "kernels runtime memcpy memset graph_trace nvtx nvtx_marks devices processes threads mpi_ranks memory_events";
  (void)TABLES;
  const char *t;
  if ((t = find_table(x, "CUPTI_ACTIVITY_KIND_KERNEL"))) {
    if ((kn = make_table(x, "kernels", KN_COLS, NCOLS(KN_COLS))) && read_kernels(x, kn, t)) goto done;
  } else if (pl_want_table(o, "kernels"))
    pl_profile_diag(p, 0,
                    "no CUPTI_ACTIVITY_KIND_KERNEL table: the capture holds no CUDA kernels (CUDA trace off, or "
                    "no kernel ran): no kernels table");
  if ((t = find_table(x, "CUPTI_ACTIVITY_KIND_RUNTIME"))) {
    if ((rt = make_table(x, "runtime", RT_COLS, NCOLS(RT_COLS))) && read_runtime(x, rt, t)) goto done;
  } else if (pl_want_table(o, "runtime"))
    pl_profile_diag(p, 0, "no CUPTI_ACTIVITY_KIND_RUNTIME table: no CUDA API calls traced: no runtime table");
  if ((t = find_table(x, "CUPTI_ACTIVITY_KIND_MEMCPY"))) {
    if ((mc = make_table(x, "memcpy", MC_COLS, NCOLS(MC_COLS))) && read_copies(x, mc, t, 0)) goto done;
  }
  if ((t = find_table(x, "CUPTI_ACTIVITY_KIND_MEMSET"))) {
    if ((ms = make_table(x, "memset", MC_COLS, NCOLS(MC_COLS)))) {
      pl_table_set_doc(ms, MC_NAME, "'Memset (Device)', as Kineto names them");
      pl_table_set_doc(ms, MC_KIND, "missing for memsets");
      pl_table_set_doc(ms, MC_DST, "memory kind set");
      if (read_copies(x, ms, t, 1)) goto done;
    }
  }
  if ((t = find_table(x, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"))) {
    if ((gt = make_table(x, "graph_trace", GT_COLS, NCOLS(GT_COLS))) && read_graph_trace(x, gt, t)) goto done;
    if (gt && gt->nrows == 0) {
      pl_table_free(gt);
      gt = NULL;
    }
  }
  if ((t = find_table(x, "NVTX_EVENTS"))) {
    nv = make_table(x, "nvtx", NV_COLS, NCOLS(NV_COLS));
    mk = make_table(x, "nvtx_marks", MK_COLS, NCOLS(MK_COLS));
    if ((nv || mk) && read_nvtx(x, nv, mk, t)) goto done;
    if (mk && mk->nrows == 0) {
      pl_table_free(mk);
      mk = NULL;
    }
  } else if (pl_want_table(o, "nvtx"))
    pl_profile_diag(p, 0,
                    "no NVTX_EVENTS table: the program has no NVTX annotations (or NVTX trace was off): no nvtx table");
  if ((dv = make_table(x, "devices", DV_COLS, NCOLS(DV_COLS))) && read_devices(x, dv)) goto done;
  if (dv && dv->nrows == 0) {
    pl_table_free(dv);
    dv = NULL;
  }
  if ((t = find_table(x, "PROCESSES")) && (pr = make_table(x, "processes", PR_COLS, NCOLS(PR_COLS))) &&
      read_simple(x, pr, t, 0))
    goto done;
  if ((t = find_table(x, "ThreadNames")) && (th = make_table(x, "threads", TH_COLS, NCOLS(TH_COLS))) &&
      read_simple(x, th, t, 1))
    goto done;
  if ((t = find_table(x, "MPI_RANKS")) && (mr = make_table(x, "mpi_ranks", MR_COLS, NCOLS(MR_COLS))) &&
      read_simple(x, mr, t, 2))
    goto done;
  if ((t = find_table(x, "CUDA_GPU_MEMORY_USAGE_EVENTS")) &&
      (me = make_table(x, "memory_events", MEM_COLS, NCOLS(MEM_COLS)))) {
    /* the calls that hold the events, read for them when runtime itself is not wanted */
    pl_table *calls = rt;
    const char *rtab = find_table(x, "CUPTI_ACTIVITY_KIND_RUNTIME");
    if (!calls && rtab) {
      calls = pl_table_declare(NULL, "runtime", x->pool, RT_COLS, NCOLS(RT_COLS), NULL);
      if (read_runtime(x, calls, rtab)) {
        pl_table_free(calls);
        goto done;
      }
    }
    int bad = read_memory(x, me, t, calls);
    if (calls != rt) pl_table_free(calls);
    if (bad) goto done;
  }
  fill_kernel_tids(x, kn, rt);
  if (!find_table(x, "PROCESSES") && pl_want_table(o, "processes"))
    pl_profile_diag(p, 0, "no PROCESSES table (2021 layout): process names unknown");
  pl_profile_meta_str(p, "tool", "Nsight Systems", 14);
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  {
    pl_table *all[] = { kn, rt, mc, ms, gt, nv, mk, dv, pr, th, mr, me };
    for (size_t i = 0; i < NCOLS(all); i++)
      if (all[i]) pl_profile_add_table(p, all[i]);
    kn = rt = mc = ms = gt = nv = mk = dv = pr = th = mr = me = NULL;
  }
  rc = 0;
done : {
  pl_table *all[] = { kn, rt, mc, ms, gt, nv, mk, dv, pr, th, mr, me };
  for (size_t i = 0; i < NCOLS(all); i++) pl_table_free(all[i]);
}
  if (x->db) sqlite3_close(x->db);
  for (size_t i = 0; i < x->ntabs; i++) free(x->tabs[i]);
  free(x->tabs);
  free(x->str);
  pl_buf_free(&x->text);
  pl_pool_release(x->pool);
  if (rc == 0 && o && o->progress) o->progress(o->progress_ud, in->len, in->len);
  free(x);
  return rc;
}

static int nsys_detect(const char *data, size_t len) {
  if (len < 100 || memcmp(data, SQLITE_MAGIC, 16) != 0) return 0;
  /* the schema text of nsys' tables sits in the first pages */
  if (pl_find(data, len, "CUPTI_ACTIVITY_KIND_") || pl_find(data, len, "StringIds") ||
      pl_find(data, len, "TARGET_INFO_"))
    return 100;
  return 50; /* a SQLite database nobody else reads: the parser says what it is */
}

/* ---- shared with the other SQLite readers (sqlitedb.h) ----------------- */
int pl_sqlite_open(pl_sqlite *x) {
  if (!x->text.data) pl_buf_init(&x->text);
  return check_header(x) || open_db(x) || load_tables(x) ? -1 : 0;
}
void pl_sqlite_close(pl_sqlite *x) {
  if (x->db) sqlite3_close(x->db);
  x->db = NULL;
  for (size_t i = 0; i < x->ntabs; i++) free(x->tabs[i]);
  free(x->tabs);
  free(x->str);
  x->tabs = NULL;
  x->str = NULL;
  x->ntabs = x->nstr = 0;
  pl_buf_free(&x->text);
}
int pl_sqlite_fail(pl_sqlite *x, int rc) { return sql_fail(x, rc); }
int pl_sqlite_select(pl_sqlite *x, const char *table, const char *const *want, size_t nwant, const char *tail,
                     sqlite3_stmt **st, uint64_t *present) {
  return select_cols(x, table, want, nwant, tail, st, present);
}
int pl_sqlite_cols(pl_sqlite *x, const char *table, char ***out, size_t *n) { return table_cols(x, table, out, n); }
void pl_sqlite_free_cols(char **c, size_t n) { free_cols(c, n); }
int pl_sqlite_step(pl_sqlite *x, sqlite3_stmt *st, int *rc) { return step_row(x, st, rc); }
int64_t pl_sqlite_int(sqlite3_stmt *st, int i) { return int_cell(st, i); }
uint32_t pl_sqlite_text(pl_sqlite *x, sqlite3_stmt *st, int i) { return text_cell(x, st, i); }
void pl_sqlite_quote(pl_buf *b, const char *s) { quote_ident(b, s); }

const pl_format pl_fmt_nsys_sqlite = {
  "nsys-sqlite",
  "Nsight Systems SQLite export (nsys export --type sqlite), 2021-2026 schemas, read-only through libsqlite3",
  "kernels runtime memcpy memset graph_trace nvtx nvtx_marks devices processes threads mpi_ranks memory_events",
  nsys_detect,
  nsys_parse,
};

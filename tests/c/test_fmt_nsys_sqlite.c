/* test_fmt_nsys_sqlite.c -- format "nsys-sqlite" on every Nsight Systems
** SQLite export of the corpus (tests/data/corpus/nsys_sqlite).
**
** Expected figures: tests/data/corpus/MANIFEST.md, "nsys SQLite figures"
** (measured there with the sqlite3 3.40.1 CLI: row counts, runtime rows of
** eventClass 0 and 1, sum(end-start) of the kernel table, memcpy bytes and
** time, TARGET_INFO_GPU rows with CUDA, kernels with a runtime call of the
** same (pid, correlation)).  A limit nsys records as 0 (maxBlocksPerSm of
** the 2022 GTX 1060 exports) is read as missing.  The cloverleaf export is also compared row for
** row with the two CSVs pipit derived from it (its tests' golden files):
** every kernel and copy (name, start, end) and every CUDA API call (raw
** name, pid, tid, start, end).  Each file is loaded twice: through the path
** (immutable URI) and from memory (sqlite3_deserialize); both must agree. */
#include "tload.h"
#include "table.h"

#include <stdint.h>
#include <sys/stat.h>

typedef struct fig {
  const char *file;
  long kernels;
  long long ksum;
  long runtime;
  long memcpy;
  long long mcbytes, mcns;
  long memset;
  long long msns;
  long nvtx, processes, devices;
  const char *dev0;
  const char *cc;
  long sms;
  long tids;
  const char *version, *schema;
} fig;

static const fig FIGS[] = {
  { "nsysai_h100x2_nsys2026.2.1_mfu_2gpu_before.sqlite", 4010, 535200650LL, 7466, 1020, 8046134544LL, 5692087LL, 269,
    -1, 19118, 17, -1, NULL, NULL, 0, 3986, "2026.2.1.210", "3.25.0" },
  { "nsysai_h100x2_nsys2026.2.1_mfu_2gpu_after.sqlite", 3587, 488835406LL, 6682, 904, -1, -1, 242, -1, 17113, 19, -1,
    NULL, NULL, 0, 3577, "2026.2.1.210", "3.25.0" },
  { "pipit_a100_nsys2024.5.1_perlmutter-cloverleaf-cuda.sqlite", 1312, 294404540LL, 3048, 279, 225116952LL, 9390923LL,
    -1, -1, -1, 1770, 4, "NVIDIA A100-SXM4-80GB", "8.0", 108, 1312, "2024.5.1.113", "3.13.2" },
  { "extrap_gtx1060_nsys2022.1.1_con_kernel.sqlite", 9, 271711594LL, 71, 11, 80360000LL, 8066276LL, 1, 2560LL, -1, 333,
    1, "GeForce GTX 1060 with Max-Q Design", "6.1", 10, 7, "2022.1.1.61", "2.9.1" },
  { "extrap_gtx1060_nsys2022.1.1_concurrent.s1_profile1.sqlite", 12, 48000028LL, 184, 30, 88320000LL, 12096248LL, 17,
    33342LL, 76, 314, 1, "GeForce GTX 1060 with Max-Q Design", "6.1", 10, 12, "2022.1.1.61", "2.9.1" },
  { "extrap_a100pcie_nsys2021_ex-gpu.s10.sqlite", 6, 34113LL, 18, -1, -1, -1, -1, -1, -1, -1, 4, "A100-PCIE-40GB",
    "8.0", 108, 6, NULL, NULL },
  { "sc23_t4_nsys2023.3.1_openmp_heat_report3.sqlite", 50, 1071243791LL, 312, 200, 102400000000LL, 26207455433LL, -1,
    -1, -1, 170, 1, "Tesla T4", "7.5", 40, 50, "2023.3.1.92", "3.4.0" },
  { "jacc_a100pcie_nsys2026.1.1_report1_no_cuda_events.sqlite", -1, 0, -1, -1, -1, -1, -1, -1, -1, 2469, 4,
    "NVIDIA A100-PCIE-40GB", "8.0", 108, 0, "2026.1.1.204", "3.24.14" },
};

static long long col_sum(const pl_table *t, const char *col) {
  int c = pl_table_col(t, col);
  long long s = 0;
  if (c < 0) return -1;
  for (size_t i = 0; i < t->nrows; i++)
    if (!pl_cell_missing(t, c, i)) s += pl_cell_int(t, c, i);
  return s;
}

static long count_present(const pl_table *t, const char *col) {
  int c = pl_table_col(t, col);
  long n = 0;
  for (size_t i = 0; c >= 0 && i < t->nrows; i++)
    if (!pl_cell_missing(t, c, i)) n++;
  return n;
}

static long count_eq(const pl_table *t, const char *col, const char *s) {
  long n = 0;
  int c = pl_table_col(t, col);
  for (size_t i = 0; c >= 0 && i < t->nrows; i++) {
    size_t l;
    const char *v = pl_cell_str(t, c, i, &l);
    if (v && strcmp(v, s) == 0) n++;
  }
  return n;
}

static void meta_is(const pl_profile *p, const char *key, const char *want) {
  const pl_meta *m = pl_profile_meta_get(p, key);
  if (!want) {
    TC_CHECK(m == NULL);
    return;
  }
  TC_CHECK(m && m->text);
  if (m && m->text) TC_EQ_STR(m->text, want);
}

static void check_fig(const pl_profile *p, const fig *f) {
  fprintf(stderr, "-- %s\n", f->file);
  const pl_table *k = pl_profile_find(p, "kernels");
  if (f->kernels < 0) TC_CHECK(k == NULL);
  else {
    TC_CHECK(k != NULL);
    if (k) {
      TC_EQ_INT(k->nrows, f->kernels);
      TC_EQ_INT(col_sum(k, "duration_ns"), f->ksum);
      TC_EQ_INT(count_present(k, "tid"), f->tids);
    }
  }
  TC_EQ_INT(f->runtime < 0 ? (long)-1 : (long)tl_rows(p, "runtime"), f->runtime);
  if (f->runtime < 0) TC_CHECK(pl_profile_find(p, "runtime") == NULL);
  const pl_table *mc = pl_profile_find(p, "memcpy");
  if (f->memcpy < 0) TC_CHECK(mc == NULL);
  else if (mc) {
    TC_EQ_INT(mc->nrows, f->memcpy);
    if (f->mcbytes >= 0) TC_EQ_INT(col_sum(mc, "bytes"), f->mcbytes);
    if (f->mcns >= 0) TC_EQ_INT(col_sum(mc, "duration_ns"), f->mcns);
  } else TC_CHECK(mc != NULL);
  const pl_table *ms = pl_profile_find(p, "memset");
  if (f->memset < 0) TC_CHECK(ms == NULL);
  else if (ms) {
    TC_EQ_INT(ms->nrows, f->memset);
    if (f->msns >= 0) TC_EQ_INT(col_sum(ms, "duration_ns"), f->msns);
  } else TC_CHECK(ms != NULL);
  const pl_table *nv = pl_profile_find(p, "nvtx");
  if (f->nvtx < 0) TC_CHECK(nv == NULL);
  else TC_EQ_INT(nv ? (long)nv->nrows : -1L, f->nvtx);
  const pl_table *pr = pl_profile_find(p, "processes");
  if (f->processes < 0) TC_CHECK(pr == NULL);
  else TC_EQ_INT(pr ? (long)pr->nrows : -1L, f->processes);
  const pl_table *dv = pl_profile_find(p, "devices");
  if (f->devices < 0) TC_CHECK(dv == NULL);
  else if (dv) {
    TC_EQ_INT(dv->nrows, f->devices);
    TC_EQ_STR(tl_str(dv, "name", 0), f->dev0);
    TC_EQ_STR(tl_str(dv, "cc", 0), f->cc);
    TC_EQ_INT((long)tl_num(dv, "sm_count", 0), f->sms);
    TC_CHECK(tl_num(dv, "max_warps_per_sm", 0) > 0 && tl_num(dv, "regs_per_sm", 0) > 0 &&
             tl_num(dv, "smem_per_sm_bytes", 0) > 0 && !(tl_num(dv, "max_blocks_per_sm", 0) <= 0));
  } else TC_CHECK(dv != NULL);
  meta_is(p, "version", f->version);
  meta_is(p, "schema_version", f->schema);
  meta_is(p, "tool", "Nsight Systems");
}

/* Both profiles hold the same tables with the same cells. */
static void same_profile(const pl_profile *a, const pl_profile *b) {
  TC_EQ_INT(a->ntables, b->ntables);
  for (size_t i = 0; i < a->ntables && i < b->ntables; i++) {
    const pl_table *x = a->tables[i], *y = pl_profile_find(b, x->name);
    TC_CHECK(y != NULL);
    if (!y) continue;
    TC_EQ_INT(x->nrows, y->nrows);
    TC_EQ_INT(x->ncols, y->ncols);
    int diff = 0;
    char s1[256], s2[256];
    for (size_t c = 0; c < x->ncols && c < y->ncols && !diff; c++)
      for (size_t r = 0; r < x->nrows && r < y->nrows; r++) {
        pl_cell_text(x, (int)c, r, s1, sizeof s1);
        pl_cell_text(y, (int)c, r, s2, sizeof s2);
        if (strcmp(s1, s2) != 0) {
          diff = 1;
          fprintf(stderr, "%s.%s row %zu: %s vs %s\n", x->name, x->cols[c]->name, r, s1, s2);
          break;
        }
      }
    TC_CHECK(!diff);
  }
}

/* ---- the pipit oracle ----------------------------------------------------- */
typedef struct ev {
  char name[128];
  long long a, b, pid, tid;
} ev;

static int ev_cmp(const void *x, const void *y) {
  const ev *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  return strcmp(p->name, q->name);
}

/* Enter rows of a pipit CSV whose column tcol equals type (NULL: any):
** name, Timestamp (ns) and _matching_timestamp; pid/tid from the API CSV. */
static ev *csv_events(const char *path, int api, const char *type, size_t *n) {
  size_t len;
  char *s = tc_slurp(path, &len);
  TC_CHECK(s != NULL);
  *n = 0;
  if (!s) return NULL;
  ev *out = malloc(sizeof *out * 8192);
  char *line = strchr(s, '\n') + 1; /* header */
  while (line && *line && *n < 8192) {
    char *end = strchr(line, '\n');
    if (end) *end = '\0';
    char *f[16];
    int nf = 0;
    for (char *p = line; nf < 16;) {
      f[nf++] = p;
      p = strchr(p, ',');
      if (!p) break;
      *p++ = '\0';
    }
    /* gpu: Name,streamId,type,bytes,Trace Type,Event Type,Timestamp (ns),_matching_event,_matching_timestamp
    ** api: Name,Process,Thread,Trace Type,Event Type,Timestamp (ns),_matching_event,_matching_timestamp */
    int ety = api ? 4 : 5;
    if (nf > ety + 3 && strcmp(f[ety], "Enter") == 0 &&
        (api || !type || (type[0] == '!' ? strcmp(f[2], type + 1) != 0 : strcmp(f[2], type) == 0))) {
      ev *e = &out[(*n)++];
      snprintf(e->name, sizeof e->name, "%s", f[0]);
      e->a = atoll(f[ety + 1]);
      e->b = atoll(f[ety + 3]);
      e->pid = api ? atoll(f[1]) : 0;
      e->tid = api ? atoll(f[2]) : 0;
    }
    line = end ? end + 1 : NULL;
  }
  free(s);
  qsort(out, *n, sizeof *out, ev_cmp);
  return out;
}

static ev *table_events(const pl_table *t, const char *namecol, int api, size_t *n) {
  ev *out = malloc(sizeof *out * (t->nrows + 1));
  int cn = pl_table_col(t, namecol), cs = pl_table_col(t, "start_ns"), ce = pl_table_col(t, "end_ns");
  int cp = pl_table_col(t, "pid"), ct = pl_table_col(t, "tid");
  for (size_t r = 0; r < t->nrows; r++) {
    size_t l;
    const char *v = pl_cell_str(t, cn, r, &l);
    snprintf(out[r].name, sizeof out[r].name, "%s", v ? v : "");
    out[r].a = pl_cell_int(t, cs, r);
    out[r].b = pl_cell_int(t, ce, r);
    out[r].pid = api ? pl_cell_int(t, cp, r) : 0;
    out[r].tid = api ? pl_cell_int(t, ct, r) : 0;
  }
  *n = t->nrows;
  qsort(out, *n, sizeof *out, ev_cmp);
  return out;
}

static void same_events(const ev *a, size_t na, const ev *b, size_t nb, const char *what) {
  TC_EQ_INT(na, nb);
  size_t bad = 0;
  long long sa = 0, sb = 0;
  for (size_t i = 0; i < na && i < nb; i++) {
    if (strcmp(a[i].name, b[i].name) || a[i].a != b[i].a || a[i].b != b[i].b || a[i].pid != b[i].pid ||
        a[i].tid != b[i].tid) {
      if (bad++ < 3)
        fprintf(stderr, "%s row %zu: %s %lld %lld vs %s %lld %lld\n", what, i, a[i].name, a[i].a, a[i].b, b[i].name,
                b[i].a, b[i].b);
    }
    sa += a[i].b - a[i].a;
    sb += b[i].b - b[i].a;
  }
  TC_EQ_INT(bad, 0);
  TC_EQ_INT(sa, sb);
}

static void pipit_oracle(const pl_profile *p) {
  char g[1024], a[1024];
  snprintf(g, sizeof g, "%s/corpus/nsys_sqlite/pipit_a100_nsys2024.5.1_cloverleaf_gpu_trace.csv", tl_shared());
  snprintf(a, sizeof a, "%s/corpus/nsys_sqlite/pipit_a100_nsys2024.5.1_cloverleaf-cuda_api_trace.csv", tl_shared());
  size_t n1, n2;
  /* kernels: pipit names them by nsys' shortName */
  ev *c = csv_events(g, 0, "kernel", &n1), *t = table_events(pl_profile_find(p, "kernels"), "short_name", 0, &n2);
  same_events(c, n1, t, n2, "kernels");
  TC_EQ_INT(n1, 1312);
  long long s = 0;
  for (size_t i = 0; i < n1; i++) s += c[i].b - c[i].a;
  TC_EQ_INT(s, 294404540LL);
  /* per-name counts: par_ranged1d 968, par_ranged2d 331, par_reduce 13 */
  const pl_table *k = pl_profile_find(p, "kernels");
  TC_EQ_INT(count_eq(k, "short_name", "par_ranged1d_kernel"), 968);
  TC_EQ_INT(count_eq(k, "short_name", "par_ranged2d_kernel"), 331);
  TC_EQ_INT(count_eq(k, "short_name", "par_reduce_kernel"), 13);
  free(c);
  free(t);
  /* copies: pipit names them by the ENUM_CUDA_MEMCPY_OPER name */
  c = csv_events(g, 0, "!kernel", &n1);
  const pl_table *mc = pl_profile_find(p, "memcpy");
  t = table_events(mc, "kind", 0, &n2);
  for (size_t i = 0; i < n2; i++)
    snprintf(t[i].name, sizeof t[i].name, "%s",
             strcmp(t[i].name, "HtoD") == 0   ? "CUDA_MEMCPY_KIND_HTOD"
             : strcmp(t[i].name, "DtoH") == 0 ? "CUDA_MEMCPY_KIND_DTOH"
                                              : t[i].name);
  same_events(c, n1, t, n2, "memcpy");
  TC_EQ_INT(count_eq(mc, "kind", "HtoD"), 254);
  TC_EQ_INT(count_eq(mc, "kind", "DtoH"), 25);
  TC_EQ_STR(tl_str(mc, "name", tl_find(mc, "kind", "HtoD")), "Memcpy HtoD (Pageable -> Device)");
  free(c);
  free(t);
  /* CUDA API calls: raw names (with the _v7000 suffix), pid, tid */
  c = csv_events(a, 1, NULL, &n1);
  const pl_table *rt = pl_profile_find(p, "runtime");
  t = table_events(rt, "raw_name", 1, &n2);
  same_events(c, n1, t, n2, "runtime");
  TC_EQ_INT(col_sum(rt, "duration_ns"), 571656984LL);
  TC_EQ_INT(count_eq(rt, "name", "cudaLaunchKernel"), 1312);
  TC_EQ_INT(count_eq(rt, "raw_name", "cudaLaunchKernel_v7000"), 1312);
  TC_EQ_INT(count_eq(rt, "name", "cudaDeviceSynchronize"), 1312);
  TC_EQ_INT(count_eq(rt, "name", "cuModuleGetLoadingMode"), 1);
  TC_EQ_INT(count_eq(rt, "cat", "cuda_driver"), 1);
  free(c);
  free(t);
}

static pl_profile *load_mem(const char *path) {
  size_t len;
  char *data = tc_slurp(path, &len);
  if (!data) return NULL;
  pl_err e;
  pl_profile *p = pl_load_buffer(path, data, len, NULL, NULL, &e);
  if (!p) {
    char b[2048];
    pl_err_format(&e, b, sizeof b);
    fprintf(stderr, "memory load failed: %s\n", b);
  }
  free(data);
  return p;
}

/* The hand-made export (tests/fixtures/nsys_sqlite/nvtx_small.sql): the
** launching thread of each kernel through (pid, correlation); pid 300's
** sparse correlation ids send the join through its hash-table path (the
** corpus exports take the dense one), pid 200 reuses correlation 1. */
static void fixture_tids(void) {
  pl_err e;
  pl_profile *p = pl_load_file("tests/fixtures/nsys_sqlite/nvtx_small.sqlite", NULL, NULL, &e);
  TC_CHECK(p != NULL);
  if (!p) return;
  const pl_table *k = pl_profile_find(p, "kernels");
  static const long want[] = { 101, 101, 101, 101, 102, 101, 201 };
  TC_EQ_INT(k->nrows, 7);
  int c = pl_table_col(k, "tid");
  for (size_t r = 0; r < k->nrows && r < 7; r++) TC_EQ_INT(pl_cell_int(k, c, r), want[r]);
  const pl_table *rt = pl_profile_find(p, "runtime");
  TC_EQ_INT(rt->nrows, 9);
  TC_EQ_INT(count_eq(rt, "cat", "cuda_driver"), 1);
  TC_EQ_INT(count_eq(rt, "name", "cudaLaunchKernel"), 8);
  const pl_table *mk = pl_profile_find(p, "nvtx_marks");
  TC_EQ_INT(mk ? (long)mk->nrows : -1L, 1);
  /* MPI ranks, thread and process names (pid/tid from the global ids) */
  const pl_table *mr = pl_profile_find(p, "mpi_ranks");
  TC_CHECK(mr != NULL);
  if (mr) {
    TC_EQ_INT(mr->nrows, 2);
    TC_EQ_INT(pl_cell_int(mr, pl_table_col(mr, "pid"), 1), 200);
    TC_EQ_INT(pl_cell_int(mr, pl_table_col(mr, "tid"), 1), 201);
    TC_EQ_INT(pl_cell_int(mr, pl_table_col(mr, "rank"), 1), 1);
  }
  const pl_table *th = pl_profile_find(p, "threads");
  TC_EQ_STR(tl_str(th, "name", 1), "loader");
  TC_EQ_INT((long)tl_num(th, "tid", 1), 102);
  const pl_table *pr = pl_profile_find(p, "processes");
  TC_EQ_STR(tl_str(pr, "name", 2), "helper");
  TC_EQ_INT((long)tl_num(pr, "pid", 2), 300);
  pl_profile_free(p);
}

int main(void) {
  fixture_tids();
  for (size_t i = 0; i < sizeof FIGS / sizeof FIGS[0]; i++) {
    char rel[512], path[1024];
    snprintf(rel, sizeof rel, "nsys_sqlite/%s", FIGS[i].file);
    snprintf(path, sizeof path, "%s/corpus/%s", tl_shared(), rel);
    struct stat before, after;
    TC_CHECK(stat(path, &before) == 0);
    pl_profile *p = tl_corpus(rel, "nsys-sqlite");
    if (!p) continue;
    check_fig(p, &FIGS[i]);
    pl_profile *m = load_mem(path);
    TC_CHECK(m != NULL);
    if (m) {
      same_profile(p, m);
      pl_profile_free(m);
    }
    if (strstr(FIGS[i].file, "cloverleaf")) pipit_oracle(p);
    if (strstr(FIGS[i].file, "mfu_2gpu_before")) {
      const pl_table *k = pl_profile_find(p, "kernels");
      TC_EQ_INT(count_eq(k, "short_name", "flash_fwd_kernel"), 68);
      TC_EQ_INT(count_eq(k, "short_name", "ncclDevKernel_SendRecv"), 66);
      const pl_table *rt = pl_profile_find(p, "runtime");
      /* launch calls (all rows; 3,587 + 399 of them have their kernel in the window) */
      TC_EQ_INT(count_eq(rt, "raw_name", "cudaLaunchKernel_v7000"), 3604);
      TC_EQ_INT(count_eq(rt, "name", "cuLaunchKernelEx"), 402);
      /* pids of the kernels: 144 and 145 */
      int cp = pl_table_col(k, "pid");
      long n144 = 0, n145 = 0;
      for (size_t r = 0; r < k->nrows; r++) {
        int64_t v = pl_cell_int(k, cp, r);
        n144 += v == 144;
        n145 += v == 145;
      }
      TC_EQ_INT(n144 + n145, 4010);
      TC_CHECK(n144 > 0 && n145 > 0);
      const pl_table *nv = pl_profile_find(p, "nvtx");
      TC_EQ_INT(count_eq(nv, "kind", "push_pop"), 19118);
      TC_CHECK(count_present(nv, "name") == 19118); /* 462 of them named through textId */
    }
    if (strstr(FIGS[i].file, "concurrent.s1")) {
      const pl_table *nv = pl_profile_find(p, "nvtx");
      long r = tl_find(nv, "name", "main->test_max_par->init_data");
      TC_EQ_INT((long)tl_num(nv, "depth", r), 2);
      TC_EQ_INT((long)tl_num(nv, "depth", tl_find(nv, "name", "main")), 0);
      TC_EQ_STR(tl_str(nv, "domain", r), "de.tu-darmstadt.parallel.extra_prof");
    }
    if (strstr(FIGS[i].file, "ex-gpu")) {
      const pl_table *rt = pl_profile_find(p, "runtime");
      TC_EQ_INT(count_eq(rt, "name", "cudaMalloc"), 4);
      TC_EQ_INT(count_eq(rt, "name", "cudaDeviceSynchronize"), 7);
      TC_EQ_INT(count_eq(rt, "name", "cudaLaunchKernel"), 6);
      TC_EQ_INT(count_eq(rt, "name", "cudaMemcpy"), 1);
      TC_CHECK(pl_table_col(pl_profile_find(p, "kernels"), "mangled_name") >= 0);
    }
    if (strstr(FIGS[i].file, "sc23")) {
      const pl_table *rt = pl_profile_find(p, "runtime");
      TC_EQ_INT(count_eq(rt, "cat", "cuda_driver"), 312);
      TC_EQ_INT(count_eq(rt, "name", "cuMemcpyHtoDAsync_v2"), 100); /* a driver name keeps its _v2 */
    }
    pl_profile_free(p);
    /* the file is never written */
    TC_CHECK(stat(path, &after) == 0);
    TC_EQ_INT(after.st_size, before.st_size);
    TC_EQ_INT(after.st_mtime, before.st_mtime);
    char side[1100];
    snprintf(side, sizeof side, "%s-journal", path);
    TC_CHECK(access(side, F_OK) != 0);
    snprintf(side, sizeof side, "%s-wal", path);
    TC_CHECK(access(side, F_OK) != 0);
  }
  return tc_done();
}

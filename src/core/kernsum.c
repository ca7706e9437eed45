/*
** kernsum.c -- kernel summaries from per-launch tables; short names.
*/
#include "kernsum.h"
#include "names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pl_fill_short_names(pl_table *t, int name_col) {
  int cs = pl_table_col(t, "short_name");
  if (cs < 0) {
    cs = pl_table_add_doc_col(t, "short_name", PL_STR, "kernel name without return type, namespaces, templates, arguments and '.kd' suffixes");
  }
  if (cs < 0 || name_col < 0 || t->cols[name_col]->type != PL_STR) return;
  char buf[1024];
  /* pool ids are dense: remember each name's short id (names repeat a lot
  ** in traces).  The pool is shared, so ids added here for short names are
  ** simply beyond the map. */
  size_t nmap = pl_pool_count(t->pool) + 1;
  uint32_t *map = pl_xcalloc(nmap, sizeof *map);
  for (size_t i = 0; i < t->nrows; i++) {
    uint32_t id = t->cols[name_col]->v.str[i];
    if (id == 0) continue;
    if (id < nmap && map[id]) { t->cols[cs]->v.str[i] = map[id]; continue; }
    size_t len;
    const char *s = pl_pool_str(t->pool, id, &len);
    size_t sn = pl_short_name(s, len, buf, sizeof buf);
    uint32_t sid = pl_pool_intern(t->pool, buf, sn);
    t->cols[cs]->v.str[i] = sid;
    if (id < nmap) map[id] = sid;
  }
  free(map);
}

pl_table *pl_kernel_summary_from(const pl_table *t, const char *out_name) {
  int cn = pl_table_col(t, "name"), cd = pl_table_col(t, "duration_ns");
  if (cn < 0 || cd < 0) return NULL;
  /* a table of several runs (an integer `run` column) is summarised per
  ** run: shares are of the run's kernel time, rows by run then time */
  int cr = pl_table_col(t, "run");
  if (cr >= 0 && t->cols[cr]->type != PL_INT) cr = -1;
  int keys[2] = { cr, cn };
  size_t nk = cr >= 0 ? 2 : 1;
  pl_agg aggs[5] = {
    { "calls", PL_AGG_COUNT, -1, 0, -1, NULL }, { "total_ns", PL_AGG_SUM, cd, 0, -1, NULL },
    { "mean_ns", PL_AGG_MEAN, cd, 0, -1, NULL }, { "min_ns", PL_AGG_MIN, cd, 0, -1, NULL },
    { "max_ns", PL_AGG_MAX, cd, 0, -1, NULL } };
  pl_err e;
  pl_table *g = pl_table_group(t, cr >= 0 ? keys : keys + 1, nk, aggs, 5, &e);
  if (g == NULL) return NULL;
  int ct = pl_table_col(g, "total_ns"), gr = cr >= 0 ? pl_table_col(g, "run") : -1;
  if (g->cols[ct]->type != PL_NUM) pl_table_retype(g, ct, PL_NUM);
  int64_t nruns = 1;
  for (size_t i = 0; gr >= 0 && i < g->nrows; i++) { int64_t r = pl_cell_int(g, gr, i); if (r != PL_INT_NA && r > nruns) nruns = r; }
  if (nruns > 1000000) nruns = 1000000;
  double *total = pl_xcalloc((size_t)nruns + 1, sizeof *total);   /* [run], 0: no run */
  for (size_t i = 0; i < g->nrows; i++) {
    double v = pl_cell_num(g, ct, i);
    int64_t r = gr >= 0 ? pl_cell_int(g, gr, i) : 0;
    if (r == PL_INT_NA || r < 0 || r > nruns) r = 0;
    if (!isnan(v)) total[r] += v;
  }
  int cp = pl_table_add_col(g, "share_pct", PL_NUM);
  for (size_t i = 0; i < g->nrows; i++) {
    int64_t r = gr >= 0 ? pl_cell_int(g, gr, i) : 0;
    if (r == PL_INT_NA || r < 0 || r > nruns) r = 0;
    g->cols[cp]->v.num[i] = total[r] > 0 ? 100.0 * pl_cell_num(g, ct, i) / total[r] : NAN;
  }
  free(total);
  pl_fill_short_names(g, pl_table_col(g, "name"));
  pl_sortkey k[2] = { { gr, 0 }, { ct, 1 } };
  size_t *ord = gr >= 0 ? pl_table_order(g, k, 2) : pl_table_order(g, k + 1, 1);
  pl_table *s = pl_table_take(g, ord, g->nrows);
  free(ord);
  pl_table_free(g);
  pl_table_set_name(s, out_name);
  const char *docs[][2] = {
    { "name", "kernel name" }, { "calls", "launches" }, { "total_ns", "sum of durations, ns" },
    { "mean_ns", "mean duration, ns" }, { "min_ns", "shortest launch, ns" }, { "max_ns", "longest launch, ns" },
    { "share_pct", gr >= 0 ? "share of the run's kernel time, percent 0-100" : "share of all kernel time, percent 0-100" },
    { "run", "run number (1, 2, ...)" } };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    int c = pl_table_col(s, docs[i][0]);
    if (c >= 0) pl_table_set_doc(s, c, docs[i][1]);
  }
  return s;
}

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
    cs = pl_table_add_doc_col(t, "short_name", PL_STR,
                              "kernel name without return type, namespaces, templates, arguments and '.kd' suffixes");
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
    if (id < nmap && map[id]) {
      t->cols[cs]->v.str[i] = map[id];
      continue;
    }
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
  pl_agg aggs[5] = { { "calls", PL_AGG_COUNT, -1, 0, -1, NULL },
                     { "total_ns", PL_AGG_SUM, cd, 0, -1, NULL },
                     { "mean_ns", PL_AGG_MEAN, cd, 0, -1, NULL },
                     { "min_ns", PL_AGG_MIN, cd, 0, -1, NULL },
                     { "max_ns", PL_AGG_MAX, cd, 0, -1, NULL } };
  pl_err e;
  pl_table *g = pl_table_group(t, cr >= 0 ? keys : keys + 1, nk, aggs, 5, &e);
  if (g == NULL) return NULL;
  int ct = pl_table_col(g, "total_ns"), gr = cr >= 0 ? pl_table_col(g, "run") : -1;
  if (g->cols[ct]->type != PL_NUM) pl_table_retype(g, ct, PL_NUM);
  int64_t nruns = 1;
  for (size_t i = 0; gr >= 0 && i < g->nrows; i++) {
    int64_t r = pl_cell_int(g, gr, i);
    if (r != PL_INT_NA && r > nruns) nruns = r;
  }
  if (nruns > 1000000) nruns = 1000000;
  double *total = pl_xcalloc((size_t)nruns + 1, sizeof *total); /* [run], 0: no run */
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
  /* NULL: the schema's description (pl_profile_add_table) */
  const char *docs[][2] = { { "name", NULL },
                            { "calls", "launches" },
                            { "total_ns", NULL },
                            { "mean_ns", NULL },
                            { "min_ns", "shortest launch, ns" },
                            { "max_ns", "longest launch, ns" },
                            { "share_pct", gr >= 0 ? "share of the run's kernel time, percent 0-100" : NULL },
                            { "run", NULL } };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    int c = pl_table_col(s, docs[i][0]);
    if (c >= 0) pl_table_set_doc(s, c, docs[i][1]);
  }
  return s;
}

/* "<barrier packet>", "<wait packet>": a whole name in angle brackets of
** words (letters, digits, spaces, '_', '-'), as rocprof names the AQL
** packets that are not kernels */
int pl_name_is_pseudo(const char *s, size_t n) {
  if (n < 3 || s[0] != '<' || s[n - 1] != '>') return 0;
  for (size_t i = 1; i + 1 < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' || c == '_' ||
          c == '-'))
      return 0;
  }
  return 1;
}

/* rows of t whose name is a pseudo-kernel: mask (1 = pseudo), count */
static size_t pseudo_rows(const pl_table *t, int cn, unsigned char **mask) {
  *mask = NULL;
  if (cn < 0 || t->cols[cn]->type != PL_STR) return 0;
  size_t k = 0;
  uint32_t last = 0;
  int lastv = 0;
  for (size_t i = 0; i < t->nrows; i++) {
    uint32_t id = t->cols[cn]->v.str[i];
    int v;
    if (id == 0) v = 0;
    else if (id == last) v = lastv;
    else {
      size_t n;
      const char *s = pl_pool_str(t->pool, id, &n);
      v = pl_name_is_pseudo(s, n);
      last = id;
      lastv = v;
    }
    if (v) {
      if (!*mask) *mask = pl_xcalloc(t->nrows, 1);
      (*mask)[i] = 1;
      k++;
    }
  }
  return k;
}

static pl_table *without(const pl_table *t, const unsigned char *mask, size_t k, int keep_pseudo) {
  size_t *idx = pl_xmalloc((t->nrows ? t->nrows : 1) * sizeof *idx), m = 0;
  for (size_t i = 0; i < t->nrows; i++)
    if ((mask[i] != 0) == keep_pseudo) idx[m++] = i;
  (void)k;
  pl_table *r = pl_table_take(t, idx, m);
  free(idx);
  return r;
}

void pl_split_pseudo_kernels(pl_profile *p) {
  pl_table *k = pl_profile_find(p, "kernels"), *s = pl_profile_find(p, "kernel_summary");
  unsigned char *mk = NULL, *ms = NULL;
  size_t nk = k ? pseudo_rows(k, pl_table_col(k, "name"), &mk) : 0;
  size_t ns = s ? pseudo_rows(s, pl_table_col(s, "name"), &ms) : 0;
  if (nk == 0 && ns == 0) {
    free(mk);
    free(ms);
    return;
  }
  /* the pseudo rows, per name: from the launches where there are some,
  ** else from the summary (a summary made from the launches says the same) */
  pl_table *pk = NULL;
  if (nk && pl_table_col(k, "duration_ns") >= 0) {
    pl_table *only = without(k, mk, nk, 1);
    pk = pl_kernel_summary_from(only, "pseudo_kernels");
    pl_table_free(only);
  } else if (ns) {
    pk = without(s, ms, ns, 1);
  } else {
    pl_table *only = without(k, mk, nk, 1);
    int key = pl_table_col(only, "name");
    pl_agg a[1] = { { "calls", PL_AGG_COUNT, -1, 0, -1, NULL } };
    pl_err e;
    pk = pl_table_group(only, &key, 1, a, 1, &e);
    pl_table_free(only);
  }
  if (pk) {
    pl_table_set_name(pk, "pseudo_kernels");
    int sp = pl_table_col(pk, "share_pct");
    if (sp >= 0) pl_table_drop_col(pk, sp); /* a share of kernel time they are not part of */
  }
  if (nk) {
    pl_table *r = without(k, mk, nk, 0);
    pl_table_set_name(r, "kernels");
    pl_profile_add_table(p, r);
  }
  if (ns) {
    pl_table *r = without(s, ms, ns, 0);
    pl_table_set_name(r, "kernel_summary");
    int ct = pl_table_col(r, "total_ns"), cp = pl_table_col(r, "share_pct");
    if (ct >= 0 && cp >= 0) {
      if (r->cols[cp]->type != PL_NUM && pl_table_retype(r, cp, PL_NUM) != 0) {
        /* a column of text (a damaged share): recomputed whole, so replaced */
        pl_table_drop_col(r, cp);
        cp = pl_table_add_col(r, "share_pct", PL_NUM);
        ct = pl_table_col(r, "total_ns"); /* the later columns shifted */
      }
      double tot = 0;
      for (size_t i = 0; i < r->nrows; i++) {
        double v = pl_cell_num(r, ct, i);
        if (!isnan(v)) tot += v;
      }
      for (size_t i = 0; i < r->nrows; i++) r->cols[cp]->v.num[i] = tot > 0 ? 100.0 * pl_cell_num(r, ct, i) / tot : NAN;
    }
    pl_profile_add_table(p, r);
  }
  double pt = 0;
  int pct = pk ? pl_table_col(pk, "total_ns") : -1;
  for (size_t i = 0; pct >= 0 && i < pk->nrows; i++) {
    double v = pl_cell_num(pk, pct, i);
    if (!isnan(v)) pt += v;
  }
  pl_profile_diag(p, 0,
                  "%zu row%s named like \"<barrier packet>\" (AQL barrier / wait packets, not kernels) moved from %s "
                  "to table pseudo_kernels: outside kernel time and the ranking%s%.0f ns",
                  nk ? nk : ns, (nk ? nk : ns) == 1 ? "" : "s", nk ? "kernels" : "kernel_summary",
                  pct >= 0 ? "; they account for " : "", pct >= 0 ? pt : 0.0);
  if (pk) pl_profile_add_table(p, pk);
  free(mk);
  free(ms);
}

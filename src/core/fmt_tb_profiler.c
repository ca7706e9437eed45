/*
** fmt_tb_profiler.c -- format "tb-profiler": what the PyTorch TensorBoard
** profiler plugin (torch-tb-profiler) serves to its web views, saved as one
** JSON document per line.  A run is five views in this order: overview
** (steps, performance, recommendations, environments, gpu_metrics or
** mlu_metrics); operator pie (device/host total/self time); operator table;
** kernel table; kernel pie.  An overview starts a new run; every table has
** a `run` column (1, 2, ...) and meta `runs` says how many.
**
** The plugin prints times in microseconds; they become nanoseconds
** (exactly: the decimal text times 1000).  Ratios 0..1 become percent.
** The two pie views repeat figures of the operator and kernel tables and
** are skipped with a diagnostic; unknown views are skipped the same way.
** Each line is read with the tokenizer of json.c into a small DOM (lines are
** a few tens of KB); a malformed line is FILE:LINE:COLUMN.
*/
#include "format.h"
#include "schema.h"
#include "units.h"
#include "json.h"
#include "names.h"
#include "scan.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct tbctx {
  pl_profile *p;
  const pl_parse_opts *o;
  pl_err *err;
  pl_json j;
  pl_jdoc d;
  pl_buf tmp;
  pl_pool *pool;
  pl_table *steps, *breakdown, *ops, *kern, *recs, *env, *devm;
  int run, run_has_overview, run_docs;
  size_t line;
} tbctx;

static pl_table *mk(tbctx *c, const char *name) {
  static const pl_coldef run = { "run", PL_INT,
                                 "run number (1, 2, ...): runs are the overview-led groups of views in file order" };
  return pl_table_declare(c->o, name, c->pool, &run, 1, NULL);
}

/* microseconds (number node) -> ns, exact from the decimal text */
static double us_to_ns(const pl_jdoc *d, int i) {
  if (i < 0 || d->n[i].type != PL_JSON_NUM) return NAN;
  int64_t v;
  if (pl_json_text_scaled(d->text.data + d->n[i].str, d->n[i].len, 3, &v) == 0) return (double)v;
  return pl_unit_scale(d->n[i].dval, 1000.0);
}

/* snake_case of a column title: "CPU Exec" -> "cpu_exec" */
static void snake(const char *s, size_t n, pl_buf *out) {
  out->len = 0;
  int us = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (isalnum(ch)) {
      pl_buf_addc(out, (char)tolower(ch));
      us = 0;
    } else if (out->len && !us) {
      pl_buf_addc(out, '_');
      us = 1;
    }
  }
  while (out->len && out->data[out->len - 1] == '_') out->len--;
  pl_buf_cstr(out);
}

static int tb_fail(tbctx *c, int node, const char *what) {
  size_t l, cc;
  pl_json_linecol(&c->j, c->j.base + c->d.n[node].at, &l, &cc);
  return pl_err_set(c->err, l, cc, "expected %s", what);
}

/* A bad row of a view: under --lenient it is skipped and listed (returns 1). */
static int tb_skip_row(tbctx *c, int node, const char *what) {
  tb_fail(c, node, what);
  return pl_lenient_skip(c->o, c->p, c->err);
}

/* ---- overview ------------------------------------------------------------ */

static const char *cat_col(const char *title, size_t n, pl_buf *tmp) {
  static const struct {
    const char *t, *c;
  } known[] = {
    { "Kernel", "kernel_ns" },     { "Memcpy", "memcpy_ns" },
    { "Memset", "memset_ns" },     { "Communication", "communication_ns" },
    { "Runtime", "runtime_ns" },   { "DataLoader", "dataloader_ns" },
    { "CPU Exec", "cpu_exec_ns" }, { "Other", "other_ns" },
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strlen(known[i].t) == n && memcmp(known[i].t, title, n) == 0) return known[i].c;
  snake(title, n, tmp);
  pl_buf_adds(tmp, "_ns");
  return pl_buf_cstr(tmp);
}

static int do_steps(tbctx *c, int steps) {
  const pl_jdoc *d = &c->d;
  int cols = pl_jdoc_get(d, steps, "columns"), rows = pl_jdoc_get(d, steps, "rows");
  if (cols < 0 || d->n[cols].type != PL_JSON_ARR || rows < 0 || d->n[rows].type != PL_JSON_ARR)
    return tb_fail(c, steps, "\"steps\" with \"columns\" and \"rows\" arrays");
  pl_table *t = c->steps;
  if (!t) return 0;
  int cstep = pl_table_add_doc_col(t, "step", PL_INT, "profiler step number");
  int colmap[64];
  size_t ncols = 0;
  for (int k = d->n[cols].first; k >= 0 && ncols < 64; k = d->n[k].next, ncols++) {
    colmap[ncols] = -1;
    size_t n;
    const char *role = pl_jdoc_str(d, pl_jdoc_get(d, k, "role"), &n);
    if (role) continue; /* tooltip HTML */
    const char *name = pl_jdoc_str(d, pl_jdoc_get(d, k, "name"), &n);
    if (!name) continue;
    if (n == 4 && memcmp(name, "Step", 4) == 0) {
      colmap[ncols] = cstep;
      continue;
    }
    const char *cn = cat_col(name, n, &c->tmp);
    char doc[160];
    snprintf(doc, sizeof doc, "time in category '%.*s' in this step, ns (plugin's us x 1000)", (int)(n > 60 ? 60 : n),
             name);
    colmap[ncols] = pl_table_add_doc_col(t, cn, PL_NUM, doc);
  }
  int ctotal = pl_table_add_doc_col(t, "total_ns", PL_NUM, "sum of the step's category times, ns");
  for (int r = d->n[rows].first; r >= 0; r = d->n[r].next) {
    if (d->n[r].type != PL_JSON_ARR) {
      if (tb_skip_row(c, r, "a step row (array)")) continue;
      return -1;
    }
    pl_row_put_int(t, 0, c->run);
    double total = 0;
    int any = 0;
    size_t i = 0;
    for (int v = d->n[r].first; v >= 0 && i < ncols; v = d->n[v].next, i++) {
      if (colmap[i] < 0) continue;
      if (colmap[i] == cstep) {
        size_t n;
        const char *s = pl_jdoc_str(d, v, &n);
        int64_t st;
        if (s && pl_parse_int64(s, n, &st) == 0) pl_row_put_int(t, cstep, st);
        continue;
      }
      double ns = us_to_ns(d, v);
      if (!isnan(ns)) {
        pl_row_put_num(t, colmap[i], ns);
        total += ns;
        any = 1;
      }
    }
    if (any) pl_row_put_num(t, ctotal, total);
    pl_row_end(t);
  }
  return 0;
}

static int do_performance(tbctx *c, int perf) {
  const pl_jdoc *d = &c->d;
  pl_table *t = c->breakdown;
  if (!t || d->n[perf].type != PL_JSON_ARR) return 0;
  int cname = pl_table_add_doc_col(t, "category", PL_STR, "step-time category ('Average Step Time' is the whole step)");
  int cval = pl_table_add_doc_col(t, "avg_ns", PL_NUM, "average time per step in this category, ns");
  int cpct = pl_table_add_doc_col(t, "pct", PL_NUM, "share of the average step time, percent");
  for (int top = d->n[perf].first; top >= 0; top = d->n[top].next) {
    for (int pass = 0; pass < 2; pass++) {
      int first = pass == 0 ? top : pl_jdoc_get(d, top, "children");
      if (pass == 1) first = first >= 0 ? d->n[first].first : -1;
      for (int k = first; k >= 0; k = pass == 0 ? -1 : d->n[k].next) {
        size_t n;
        const char *name = pl_jdoc_str(d, pl_jdoc_get(d, k, "name"), &n);
        if (!name) continue;
        pl_row_put_int(t, 0, c->run);
        pl_row_put_str(t, cname, name, n);
        double ns = us_to_ns(d, pl_jdoc_get(d, k, "value"));
        if (!isnan(ns)) pl_row_put_num(t, cval, ns);
        double pct = pl_jdoc_num(d, pl_jdoc_get(d, k, "extra"));
        if (!isnan(pct)) pl_row_put_num(t, cpct, pct);
        pl_row_end(t);
        if (pass == 0) break;
      }
    }
  }
  return 0;
}

/* HTML -> plain text: tags dropped, <a href=U>T</a> -> "T (U)", entities decoded. */
static void strip_html(const char *s, size_t n, pl_buf *out) {
  out->len = 0;
  const char *href = NULL;
  size_t hrefn = 0;
  for (size_t i = 0; i < n;) {
    if (s[i] == '<') {
      const char *gt = memchr(s + i, '>', n - i);
      if (!gt) break;
      size_t tl = (size_t)(gt - (s + i)) + 1;
      const char *h = pl_find(s + i, tl, "href=\"");
      if (h) {
        href = h + 6;
        const char *q = memchr(href, '"', (size_t)(gt - href));
        hrefn = q ? (size_t)(q - href) : 0;
      } else if (tl >= 4 && strncasecmp(s + i, "</a>", 4) == 0 && href) {
        pl_buf_adds(out, " (");
        pl_buf_add(out, href, hrefn);
        pl_buf_addc(out, ')');
        href = NULL;
      } else if (tl >= 4 && strncasecmp(s + i, "<br", 3) == 0) pl_buf_addc(out, ' ');
      i += tl;
      continue;
    }
    if (s[i] == '&') {
      static const struct {
        const char *e;
        char c;
      } ents[] = { { "&amp;", '&' },  { "&lt;", '<' },   { "&gt;", '>' },
                   { "&quot;", '"' }, { "&#39;", '\'' }, { "&nbsp;", ' ' } };
      size_t k;
      for (k = 0; k < sizeof ents / sizeof ents[0]; k++) {
        size_t el = strlen(ents[k].e);
        if (n - i >= el && memcmp(s + i, ents[k].e, el) == 0) {
          pl_buf_addc(out, ents[k].c);
          i += el;
          break;
        }
      }
      if (k < sizeof ents / sizeof ents[0]) continue;
    }
    pl_buf_addc(out, s[i++]);
  }
  /* collapse spaces */
  size_t w = 0;
  for (size_t r = 0; r < out->len; r++) {
    char ch = out->data[r] == '\n' || out->data[r] == '\t' ? ' ' : out->data[r];
    if (ch == ' ' && (w == 0 || out->data[w - 1] == ' ')) continue;
    out->data[w++] = ch;
  }
  while (w && out->data[w - 1] == ' ') w--;
  out->len = w;
  pl_buf_cstr(out);
}

static int do_recommendations(tbctx *c, int node) {
  const pl_jdoc *d = &c->d;
  pl_table *t = c->recs;
  size_t n;
  const char *s = pl_jdoc_str(d, node, &n);
  if (!t || !s) return 0;
  int ctext = pl_table_add_doc_col(t, "text", PL_STR,
                                   "the recommendation as plain text (HTML stripped; links as 'text (URL)')");
  /* one row per <li>, or the whole text when there is no list */
  const char *li = pl_find(s, n, "<li>");
  pl_buf item;
  pl_buf_init(&item);
  while (1) {
    const char *start, *stop;
    if (li) {
      start = li + 4;
      const char *e = pl_find(start, n - (size_t)(start - s), "</li>");
      stop = e ? e : s + n;
      li = e ? pl_find(e, n - (size_t)(e - s), "<li>") : NULL;
    } else {
      start = s;
      stop = s + n;
    }
    strip_html(start, (size_t)(stop - start), &item);
    if (item.len && !(item.len == 3 && memcmp(item.data, "N/A", 3) == 0)) {
      pl_row_put_int(t, 0, c->run);
      pl_row_put_str(t, ctext, item.data, item.len);
      pl_row_end(t);
    }
    if (!li || start == s) break;
  }
  pl_buf_free(&item);
  return 0;
}

static void do_pairs(tbctx *c, int list, pl_table *t, const char *what) {
  const pl_jdoc *d = &c->d;
  if (!t || list < 0 || d->n[list].type != PL_JSON_ARR) return;
  int cn = pl_table_add_doc_col(t, "name", PL_STR, what);
  int cv = pl_table_add_doc_col(t, "value", PL_STR, "value as printed");
  for (int k = d->n[list].first; k >= 0; k = d->n[k].next) {
    size_t tn, vn;
    const char *title = pl_jdoc_str(d, pl_jdoc_get(d, k, "title"), &tn);
    const char *val = pl_jdoc_str(d, pl_jdoc_get(d, k, "value"), &vn);
    if (!title) continue;
    pl_row_put_int(t, 0, c->run);
    pl_row_put_str(t, cn, title, tn);
    if (val) pl_row_put_str(t, cv, val, vn);
    pl_row_end(t);
  }
}

static void do_metrics(tbctx *c, int node, const char *key) {
  const pl_jdoc *d = &c->d;
  int data = pl_jdoc_get(d, node, "data");
  if (data < 0 || d->n[data].type != PL_JSON_ARR) return;
  char device[64] = "";
  pl_table *t = c->devm;
  int cdev = -1, cm = -1, cv = -1, cu = -1, craw = -1;
  if (t) {
    cdev = pl_table_add_doc_col(t, "device", PL_STR, "device the metric belongs to ('GPU 0', 'MLU 0')");
    cm =
        pl_table_add_doc_col(t, "metric", PL_STR, "metric title as printed (GPU Utilization, Est. SM Efficiency, ...)");
    cv = pl_table_add_doc_col(
        t, "value", PL_NUM,
        "value in base units: percent 0-100 for '%', bytes for 'GB' (the plugin's GB are GiB: x 2^30)");
    cu = pl_table_add_doc_col(t, "unit", PL_STR, "unit of value: pct, byte, or empty");
    craw = pl_table_add_doc_col(t, "raw", PL_STR, "the text as printed");
  }
  for (int k = d->n[data].first; k >= 0; k = d->n[k].next) {
    size_t tn, vn;
    const char *title = pl_jdoc_str(d, pl_jdoc_get(d, k, "title"), &tn);
    const char *val = pl_jdoc_str(d, pl_jdoc_get(d, k, "value"), &vn);
    if (!title) continue;
    if (tn && title[tn - 1] == ':' && (!val || vn == 0)) { /* "GPU 0:" header */
      snprintf(device, sizeof device, "%.*s", (int)(tn - 1 > 60 ? 60 : tn - 1), title);
      continue;
    }
    if (c->run == 1 && val) {
      if (tn == 4 && memcmp(title, "Name", 4) == 0) pl_profile_meta_str(c->p, "device", val, vn);
      else if (tn == 18 && memcmp(title, "Compute Capability", 18) == 0) pl_profile_meta_str(c->p, "cc", val, vn);
    }
    if (!t) continue;
    pl_row_put_int(t, 0, c->run);
    if (device[0]) pl_row_put_str(t, cdev, device, strlen(device));
    pl_row_put_str(t, cm, title, tn);
    if (val) {
      pl_row_put_str(t, craw, val, vn);
      const char *s = val;
      size_t n = vn;
      pl_trim(&s, &n);
      const char *sp = memchr(s, ' ', n);
      size_t numn = sp ? (size_t)(sp - s) : n;
      double v;
      if (numn && pl_parse_double(s, numn, &v) == 0) {
        const char *u = sp ? sp + 1 : s + n;
        size_t un = (size_t)(s + n - u);
        if (un == 1 && u[0] == '%') {
          pl_row_put_num(t, cv, v);
          pl_row_put_str(t, cu, "pct", 3);
        } else if (un == 2 && memcmp(u, "GB", 2) == 0) {
          pl_row_put_num(t, cv, v * 1073741824.0);
          pl_row_put_str(t, cu, "byte", 4);
        } else if (un == 0) pl_row_put_num(t, cv, v);
      }
    }
    pl_row_end(t);
  }
  (void)key;
}

static int do_overview(tbctx *c, int root) {
  const pl_jdoc *d = &c->d;
  for (int k = d->n[root].first; k >= 0; k = d->n[k].next) {
    size_t kn;
    const char *key = pl_jdoc_key(d, k, &kn);
    if (kn == 5 && memcmp(key, "steps", 5) == 0) {
      if (do_steps(c, k)) return -1;
    } else if (kn == 11 && memcmp(key, "performance", 11) == 0) do_performance(c, k);
    else if (kn == 15 && memcmp(key, "recommendations", 15) == 0) do_recommendations(c, k);
    else if (kn == 12 && memcmp(key, "environments", 12) == 0)
      do_pairs(c, k, c->env, "environment item (Number of Worker(s), Device Type, ...)");
    else if (kn > 8 && memcmp(key + kn - 8, "_metrics", 8) == 0) do_metrics(c, k, key);
    else pl_profile_diag(c->p, c->line, "overview: \"%.*s\" not read", (int)(kn > 60 ? 60 : kn), key);
  }
  return 0;
}

/* ---- operator table ------------------------------------------------------ */

static int do_operators(tbctx *c, int data) {
  const pl_jdoc *d = &c->d;
  pl_table *t = c->ops;
  if (!t) return 0;
  int cname = pl_table_add_doc_col(t, "name", PL_STR, "operator name");
  int cshape = -1;
  int ccalls = pl_table_add_doc_col(t, "calls", PL_INT, "number of calls");
  int cds =
      pl_table_add_doc_col(t, "device_self_ns", PL_NUM, "GPU time of kernels launched by the operator itself, ns");
  int cdt = pl_table_add_doc_col(t, "device_total_ns", PL_NUM, "GPU time including child operators, ns");
  int chs = pl_table_add_doc_col(t, "host_self_ns", PL_NUM, "CPU time excluding child operators, ns");
  int cht = pl_table_add_doc_col(t, "host_total_ns", PL_NUM, "CPU time including child operators, ns");
  int ctce = pl_table_add_doc_col(t, "tc_eligible", PL_BOOL, "operator is eligible to use Tensor Cores");
  int ctcs =
      pl_table_add_doc_col(t, "tc_self_pct", PL_NUM,
                           "self-kernel time using Tensor Cores, percent of self-kernel time (plugin ratio x 100)");
  int ctct = pl_table_add_doc_col(
      t, "tc_total_pct", PL_NUM, "kernel time using Tensor Cores, percent of all its kernel time (plugin ratio x 100)");
  int ccs = pl_table_add_doc_col(t, "has_call_stack", PL_BOOL, "the plugin holds call stacks for it");
  for (int r = d->n[data].first; r >= 0; r = d->n[r].next) {
    if (d->n[r].type != PL_JSON_OBJ) {
      if (tb_skip_row(c, r, "an operator row (object)")) continue;
      return -1;
    }
    size_t n;
    const char *name = pl_jdoc_str(d, pl_jdoc_get(d, r, "name"), &n);
    if (!name) {
      if (tb_skip_row(c, r, "an operator row with \"name\"")) continue;
      return -1;
    }
    pl_row_put_int(t, 0, c->run);
    pl_row_put_str(t, cname, name, n);
    int sh = pl_jdoc_get(d, r, "input_shape");
    if (sh >= 0) {
      if (cshape < 0)
        cshape = pl_table_add_doc_col(t, "input_shape", PL_STR, "input shapes (operator table grouped by input shape)");
      const char *s = pl_jdoc_str(d, sh, &n);
      if (s) pl_row_put_str(t, cshape, s, n);
    }
    int v = pl_jdoc_get(d, r, "calls");
    if (v >= 0 && d->n[v].type == PL_JSON_NUM)
      pl_row_put_int(t, ccalls, d->n[v].isint ? d->n[v].ival : pl_int_of(d->n[v].dval));
    double x;
    if (!isnan(x = us_to_ns(d, pl_jdoc_get(d, r, "device_self_duration")))) pl_row_put_num(t, cds, x);
    if (!isnan(x = us_to_ns(d, pl_jdoc_get(d, r, "device_total_duration")))) pl_row_put_num(t, cdt, x);
    if (!isnan(x = us_to_ns(d, pl_jdoc_get(d, r, "host_self_duration")))) pl_row_put_num(t, chs, x);
    if (!isnan(x = us_to_ns(d, pl_jdoc_get(d, r, "host_total_duration")))) pl_row_put_num(t, cht, x);
    const char *e = pl_jdoc_str(d, pl_jdoc_get(d, r, "tc_eligible"), &n);
    if (e) pl_row_put_bool(t, ctce, n == 3 && strncasecmp(e, "yes", 3) == 0);
    if (!isnan(x = pl_jdoc_num(d, pl_jdoc_get(d, r, "tc_self_ratio")))) pl_row_put_num(t, ctcs, x * 100.0);
    if (!isnan(x = pl_jdoc_num(d, pl_jdoc_get(d, r, "tc_total_ratio")))) pl_row_put_num(t, ctct, x * 100.0);
    v = pl_jdoc_get(d, r, "has_call_stack");
    if (v >= 0 && (d->n[v].type == PL_JSON_TRUE || d->n[v].type == PL_JSON_FALSE))
      pl_row_put_bool(t, ccs, d->n[v].type == PL_JSON_TRUE);
    pl_row_end(t);
  }
  return 0;
}

/* ---- kernel table ---------------------------------------------------------- */

static int do_kernels(tbctx *c, int data) {
  const pl_jdoc *d = &c->d;
  pl_table *t = c->kern;
  int cols = pl_jdoc_get(d, data, "columns"), rows = pl_jdoc_get(d, data, "rows");
  if (cols < 0 || rows < 0 || d->n[cols].type != PL_JSON_ARR || d->n[rows].type != PL_JSON_ARR)
    return tb_fail(c, data, "a kernel table with \"columns\" and \"rows\"");
  if (!t) return 0;
  int cname = pl_table_add_doc_col(t, "name", PL_STR, NULL);
  int cshort = pl_table_add_doc_col(t, "short_name", PL_STR, NULL);
  int ctc = pl_table_add_doc_col(t, "tensor_cores_used", PL_BOOL, "kernel uses Tensor Cores");
  int ccalls = pl_table_add_doc_col(t, "calls", PL_INT, "launches");
  int ctot = pl_table_add_doc_col(t, "total_ns", PL_NUM, NULL);
  int cmean = pl_table_add_doc_col(t, "mean_ns", PL_NUM, NULL);
  int cmax = pl_table_add_doc_col(t, "max_ns", PL_NUM, "longest launch, ns");
  int cmin = pl_table_add_doc_col(t, "min_ns", PL_NUM, "shortest launch, ns");
  int cshare = pl_table_add_doc_col(t, "share_pct", PL_NUM, "total_ns as percent of all kernels' total in this run");
  enum { K_SKIP, K_NAME, K_TC, K_CALLS, K_US, K_NUM, K_OP } kind[64];
  int target[64];
  size_t ncols = 0;
  for (int k = d->n[cols].first; k >= 0 && ncols < 64; k = d->n[k].next, ncols++) {
    size_t n;
    const char *name = pl_jdoc_str(d, pl_jdoc_get(d, k, "name"), &n);
    kind[ncols] = K_SKIP;
    target[ncols] = -1;
    if (!name) continue;
#define IS(lit) (n == sizeof(lit) - 1 && memcmp(name, lit, n) == 0)
    if (IS("Name")) {
      kind[ncols] = K_NAME;
      target[ncols] = cname;
    } else if (IS("Tensor Cores Used")) {
      kind[ncols] = K_TC;
      target[ncols] = ctc;
    } else if (IS("Calls")) {
      kind[ncols] = K_CALLS;
      target[ncols] = ccalls;
    } else if (IS("Total Duration (us)")) {
      kind[ncols] = K_US;
      target[ncols] = ctot;
    } else if (IS("Mean Duration (us)")) {
      kind[ncols] = K_US;
      target[ncols] = cmean;
    } else if (IS("Max Duration (us)")) {
      kind[ncols] = K_US;
      target[ncols] = cmax;
    } else if (IS("Min Duration (us)")) {
      kind[ncols] = K_US;
      target[ncols] = cmin;
    } else if (IS("Mean Blocks Per SM")) {
      kind[ncols] = K_NUM;
      target[ncols] = pl_table_add_doc_col(t, "mean_blocks_per_sm", PL_NUM, "duration-weighted mean blocks per SM");
    } else if (IS("Mean Est. Achieved Occupancy (%)")) {
      kind[ncols] = K_NUM;
      target[ncols] = pl_table_add_doc_col(t, "mean_est_achieved_occupancy_pct", PL_NUM,
                                           "duration-weighted mean estimated achieved occupancy, percent");
    } else if (IS("Operator")) {
      kind[ncols] = K_OP;
      target[ncols] =
          pl_table_add_doc_col(t, "operator", PL_STR, "operator that launched it (kernel table grouped by operator)");
    } else {
      /* any other column: kept under its snake_case name */
      snake(name, n, &c->tmp);
      const char *type = pl_jdoc_str(d, pl_jdoc_get(d, k, "type"), NULL);
      int isnum = type && strcmp(type, "number") == 0;
      if (c->tmp.len) {
        int us = n > 5 && memcmp(name + n - 5, " (us)", 5) == 0;
        if (us) {
          c->tmp.len -= 3;
          pl_buf_adds(&c->tmp, "_ns");
        }
        kind[ncols] = us ? K_US : isnum ? K_NUM : K_OP;
        target[ncols] = pl_table_add_doc_col(t, pl_buf_cstr(&c->tmp), isnum ? PL_NUM : PL_STR,
                                             "column of the plugin's kernel table");
      }
    }
#undef IS
  }
  size_t first_row = t->nrows;
  double sum = 0;
  char shortbuf[1024];
  for (int r = d->n[rows].first; r >= 0; r = d->n[r].next) {
    if (d->n[r].type != PL_JSON_ARR) {
      if (tb_skip_row(c, r, "a kernel row (array)")) continue;
      return -1;
    }
    pl_row_put_int(t, 0, c->run);
    size_t i = 0;
    for (int v = d->n[r].first; v >= 0 && i < ncols; v = d->n[v].next, i++) {
      size_t n;
      const char *s;
      double x;
      if (target[i] < 0) continue;
      switch (kind[i]) {
        case K_NAME:
          s = pl_jdoc_str(d, v, &n);
          if (s) {
            pl_row_put_str(t, cname, s, n);
            size_t sn = pl_short_name(s, n, shortbuf, sizeof shortbuf);
            pl_row_put_str(t, cshort, shortbuf, sn);
          }
          break;
        case K_TC:
          s = pl_jdoc_str(d, v, &n);
          if (s) pl_row_put_bool(t, ctc, n == 3 && strncasecmp(s, "yes", 3) == 0);
          break;
        case K_CALLS:
          if (d->n[v].type == PL_JSON_NUM)
            pl_row_put_int(t, ccalls, d->n[v].isint ? d->n[v].ival : pl_int_of(d->n[v].dval));
          break;
        case K_US:
          if (!isnan(x = us_to_ns(d, v))) {
            pl_row_put_num(t, target[i], x);
            if (target[i] == ctot) sum += x;
          }
          break;
        case K_NUM:
          if (!isnan(x = pl_jdoc_num(d, v))) pl_row_put_num(t, target[i], x);
          break;
        case K_OP:
          s = pl_jdoc_str(d, v, &n);
          if (s) pl_row_put_str(t, target[i], s, n);
          break;
        default: break;
      }
    }
    pl_row_end(t);
  }
  if (sum > 0)
    for (size_t r = first_row; r < t->nrows; r++) {
      double x = pl_cell_num(t, ctot, r);
      if (!isnan(x)) t->cols[cshare]->v.num[r] = 100.0 * x / sum;
    }
  return 0;
}

/* ---- per line ---------------------------------------------------------------- */

static int has_key(const pl_jdoc *d, int o, const char *k) { return pl_jdoc_get(d, o, k) >= 0; }

static int do_doc(tbctx *c, int root) {
  const pl_jdoc *d = &c->d;
  if (d->n[root].type != PL_JSON_OBJ) {
    pl_profile_diag(c->p, c->line, "a JSON %s, not a plugin view: skipped",
                    d->n[root].type == PL_JSON_ARR ? "array" : "value");
    return 0;
  }
  int overview = has_key(d, root, "steps") || has_key(d, root, "performance") || has_key(d, root, "recommendations");
  if (overview) {
    if (!(c->run >= 1 && !c->run_has_overview && c->run_docs == 0)) {
      c->run++;
      c->run_docs = 0;
    }
    c->run_has_overview = 1;
    c->run_docs++;
    return do_overview(c, root);
  }
  if (c->run == 0) c->run = 1;
  c->run_docs++;
  if (has_key(d, root, "device_total_time") || has_key(d, root, "host_total_time")) {
    pl_profile_diag(c->p, c->line,
                    "operator pie view (device/host total/self time by operator) skipped: the operator table holds the "
                    "same figures");
    return 0;
  }
  int data = pl_jdoc_get(d, root, "data");
  if (data >= 0 && d->n[data].type == PL_JSON_ARR) {
    int first = d->n[data].first;
    if (first < 0 || (d->n[first].type == PL_JSON_OBJ && has_key(d, first, "name") && has_key(d, first, "calls")))
      return do_operators(c, data);
  }
  if (data >= 0 && d->n[data].type == PL_JSON_OBJ && has_key(d, data, "columns") && has_key(d, data, "rows")) {
    int cols = pl_jdoc_get(d, data, "columns");
    int c0 = pl_jdoc_at(d, cols, 0);
    size_t n;
    const char *nm = pl_jdoc_str(d, pl_jdoc_get(d, c0, "name"), &n);
    int k1 = pl_jdoc_at(d, cols, 1);
    const char *nm1 = pl_jdoc_str(d, pl_jdoc_get(d, k1, "name"), NULL);
    if (nm && n == 4 && memcmp(nm, "Name", 4) == 0 && nm1 && strstr(nm1, "Tensor Cores") != NULL)
      return do_kernels(c, data);
    if (nm && strcmp(nm, "Name") == 0) return do_kernels(c, data);
  }
  if (has_key(d, root, "total")) {
    pl_profile_diag(c->p, c->line,
                    "kernel pie view (total time by kernel) skipped: the kernel table holds the same figures");
    return 0;
  }
  /* name the keys in the diagnostic */
  char keys[200];
  size_t kl = 0;
  keys[0] = '\0';
  for (int k = d->n[root].first; k >= 0 && kl < 150; k = d->n[k].next) {
    size_t n;
    const char *key = pl_jdoc_key(d, k, &n);
    kl += (size_t)snprintf(keys + kl, sizeof keys - kl, "%s%.*s", kl ? ", " : "", (int)(n > 40 ? 40 : n), key);
  }
  pl_profile_diag(c->p, c->line, "view with keys {%s} not recognised: skipped", keys);
  return 0;
}

static int tb_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  tbctx c;
  memset(&c, 0, sizeof c);
  c.p = p;
  c.o = o;
  c.err = err;
  pl_json_init(&c.j, in->data, in->len, err);
  pl_jdoc_init(&c.d);
  pl_buf_init(&c.tmp);
  c.pool = pl_pool_new();
  c.steps = mk(&c, "steps");
  c.breakdown = mk(&c, "step_breakdown");
  c.ops = mk(&c, "operators");
  c.kern = mk(&c, "kernel_summary");
  c.recs = mk(&c, "recommendations");
  c.env = mk(&c, "environment");
  c.devm = mk(&c, "device_metrics");
  pl_table **all[] = { &c.steps, &c.breakdown, &c.ops, &c.kern, &c.recs, &c.env, &c.devm };
  pl_lines lc;
  pl_line l;
  pl_lines_init(&lc, in->data, in->len);
  int rc = -1, docs = 0;
  while (pl_lines_next(&lc, &l)) {
    if (o && o->interrupt && *o->interrupt) {
      pl_err_set(err, lc.lineno, 1, "interrupted");
      goto done;
    }
    if (pl_is_blank(l.s, l.n)) continue;
    c.line = lc.lineno;
    size_t start = (size_t)(l.s - in->data);
    pl_json_reset(&c.j, start, start + l.n);
    pl_jdoc_clear(&c.d);
    /* a line that is not one whole JSON document: nothing of it was kept,
    ** so under --lenient it is skipped and listed */
    int root = -1;
    if (pl_json_next(&c.j) != PL_JSON_ERROR) root = pl_jdoc_read(&c.d, &c.j);
    if (root < 0 || pl_json_next(&c.j) != PL_JSON_EOF) {
      if (pl_lenient_skip(o, p, err)) continue;
      goto done;
    }
    if (do_doc(&c, root)) goto done;
    docs++;
  }
  if (docs == 0) {
    pl_err_set(err, 1, 1, "expected one JSON document per line, found none");
    goto done;
  }
  pl_profile_meta_str(p, "tool", "PyTorch TensorBoard profiler plugin", strlen("PyTorch TensorBoard profiler plugin"));
  pl_profile_meta_num(p, "runs", c.run);
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (*all[i]) {
      pl_profile_add_table(p, *all[i]);
      *all[i] = NULL;
    }
  rc = 0;
done:
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    pl_table_free(*all[i]);
    *all[i] = NULL;
  }
  pl_pool_release(c.pool);
  pl_json_free(&c.j);
  pl_jdoc_free(&c.d);
  pl_buf_free(&c.tmp);
  return rc;
}

static int tb_detect(const char *data, size_t len) {
  size_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) i++;
  if (i >= len || data[i] != '{') return 0;
  const char *nl = memchr(data + i, '\n', len - i);
  size_t n = nl ? (size_t)(nl - (data + i)) : len - i;
  const char *s = data + i;
  if (pl_find(data + i, len - i, "\"traceEvents\"")) return 0;
  if (pl_starts(s, n, "{\"steps\": {\"columns\"") || pl_starts(s, n, "{\"device_total_time\"") ||
      pl_starts(s, n, "{\"metadata\": {\"sort\"") || pl_starts(s, n, "{\"total\": {\"columns\""))
    return 85;
  if (pl_find(s, n, "\"performance\"") && pl_find(s, n, "\"recommendations\"")) return 70;
  return 0;
}

const pl_format pl_fmt_tb_profiler = {
  "tb-profiler",
  "PyTorch TensorBoard profiler plugin views (overview, operators, kernels), one JSON document per line",
  "steps step_breakdown operators kernel_summary recommendations environment device_metrics",
  tb_detect,
  tb_parse,
};

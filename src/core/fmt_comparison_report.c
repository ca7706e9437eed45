/*
** fmt_comparison_report.c -- format "comparison-report": Markdown reports
** that compare a normal and an abnormal run of the same program (seed 002):
**
**   # Strict Performance Comparison: NAME (PID: 944615)
**   ## 1. High-Level Performance Summary        -> table `summary`
**   ## 2. Cycle Duration Distribution Comparison -> table `cycle_distribution`
**   ### Key Findings:  (nested bullets)         -> `key_findings`, `finding_metrics`
**   ### Detailed comparison table               -> table `details`
**   ## 5. Legend  (- **term**: definition)      -> table `legend`
**
** Any other pipe table becomes a generic table named after its heading.
** The run labels ("normal", "abnormal") are read from the summary header, so
** columns like "β_normal(%)" map to beta_normal_pct whatever the labels are.
** Times printed in microseconds are converted to ns.  Prose lines are skipped
** and listed in the diagnostics.
*/
#include "format.h"
#include "mdtable.h"
#include "names.h"
#include "scan.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct cr_state {
  char label1[64], label2[64]; /* snake_case run labels */
  int which;                   /* 0 summary, 1 cycle, 2 details */
} cr_state;

/* Replaces the run labels in a snake name with "normal"/"abnormal". */
static void canon_labels(cr_state *st, char *name, size_t cap) {
  char out[96];
  size_t k = 0;
  const char *p = name;
  while (*p && k + 1 < sizeof out) {
    const char *e = strchr(p, '_');
    size_t wl = e ? (size_t)(e - p) : strlen(p);
    const char *w = p;
    size_t wn = wl;
    if (st->label1[0] && strlen(st->label1) == wl && memcmp(p, st->label1, wl) == 0) {
      w = "normal";
      wn = 6;
    } else if (st->label2[0] && strlen(st->label2) == wl && memcmp(p, st->label2, wl) == 0) {
      w = "abnormal";
      wn = 8;
    }
    for (size_t i = 0; i < wn && k + 1 < sizeof out; i++) out[k++] = w[i];
    p += wl;
    if (*p == '_') {
      if (k + 1 < sizeof out) out[k++] = '_';
      p++;
    }
  }
  out[k] = '\0';
  snprintf(name, cap, "%s", out);
}

typedef struct colmap {
  const char *from, *to;
  int kind;
  double factor;
  int raw;
  const char *doc;
} colmap;

static const colmap summary_map[] = {
  { "metric", "metric", PL_MD_TEXT, 1, 0, "what is compared (its unit in parentheses as printed)" },
  { "normal", "normal", PL_MD_NUM, 1, 1, "value in the normal (baseline) run; times converted to ns" },
  { "abnormal", "abnormal", PL_MD_NUM, 1, 1, "value in the abnormal run; times converted to ns" },
  { "delta_abnormal_normal", "delta", PL_MD_NUM, 1, 1, "abnormal - normal; times converted to ns" },
  { "change_pct", "change_pct", PL_MD_NUM, 1, 0, "relative change, percent" },
  { NULL, NULL, 0, 0, 0, NULL }
};
static const colmap cycle_map[] = {
  { "time_rank", "rank", PL_MD_INT, 1, 0, "rank of the cycle by duration (1 = slowest)" },
  { "normal_time_us", "normal_ns", PL_MD_NUM, 1e3, 0, "cycle duration in the normal run, ns (printed in us)" },
  { "abnormal_time_us", "abnormal_ns", PL_MD_NUM, 1e3, 0, "cycle duration in the abnormal run, ns (printed in us)" },
  { "delta_us", "delta_ns", PL_MD_NUM, 1e3, 0, "abnormal - normal, ns (printed in us)" },
  { "delta_pct", "delta_pct", PL_MD_NUM, 1, 0, "relative change, percent" },
  { NULL, NULL, 0, 0, 0, NULL }
};
static const colmap details_map[] = {
  { "function_name", "function", PL_MD_TEXT, 1, 0, "function (kernel) name, full text" },
  { "metric_name", "metric", PL_MD_TEXT, 1, 0, "resource metric correlated with the function" },
  { "device", "device", PL_MD_TEXT, 1, 0, "device of the metric (e.g. GPU 7)" },
  { "suspicion_score", "suspicion_score", PL_MD_NUM, 1, 0,
    "|delta beta| * (|Z(beta)| + |Z(log mu)|): rank of suspicion" },
  { "beta_normal_pct", "beta_normal_pct", PL_MD_NUM, 1, 0, "share of cycle time in the normal run, percent" },
  { "beta_abnormal_pct", "beta_abnormal_pct", PL_MD_NUM, 1, 0, "share of cycle time in the abnormal run, percent" },
  { "delta_beta_pct", "delta_beta_pct", PL_MD_NUM, 1, 0, "change of the share, percentage points" },
  { "z_score_beta", "z_beta", PL_MD_NUM, 1, 0, "Z-score of the share change" },
  { "p_value_beta", "p_beta", PL_MD_NUM, 1, 0, "p-value of the share change" },
  { "u_test_p_beta", "u_p_beta", PL_MD_NUM, 1, 0, "Mann-Whitney U-test p-value of the share change" },
  { "mu_normal", "mu_normal", PL_MD_NUM, 1, 0,
    "mean metric value during the function, normal run (metric's own unit)" },
  { "mu_abnormal", "mu_abnormal", PL_MD_NUM, 1, 0, "mean metric value during the function, abnormal run" },
  { "delta_mu", "delta_mu", PL_MD_NUM, 1, 0, "mu_abnormal - mu_normal" },
  { "z_score_mu", "z_mu", PL_MD_NUM, 1, 0, "Z-score of the metric change" },
  { "z_score_log_mu", "z_log_mu", PL_MD_NUM, 1, 0, "Z-score of the change of log(mu)" },
  { "p_value_mu", "p_mu", PL_MD_NUM, 1, 0, "p-value of the metric change" },
  { "u_test_p_mu", "u_p_mu", PL_MD_NUM, 1, 0, "Mann-Whitney U-test p-value of the metric change" },
  { NULL, NULL, 0, 0, 0, NULL }
};

static void cr_map(void *ud, int col, const char *hdr, size_t n, pl_md_colspec *spec) {
  cr_state *st = ud;
  (void)col;
  (void)hdr;
  (void)n;
  canon_labels(st, spec->name, sizeof spec->name);
  const colmap *m = st->which == 0 ? summary_map : st->which == 1 ? cycle_map : details_map;
  for (; m->from; m++) {
    if (strcmp(spec->name, m->from) == 0) {
      snprintf(spec->name, sizeof spec->name, "%s", m->to);
      spec->kind = m->kind;
      spec->factor = m->factor;
      spec->keep_raw = m->raw;
      spec->doc = m->doc;
      return;
    }
  }
  /* extras: keep the snake_case name; "_us" columns become ns */
  size_t l = strlen(spec->name);
  if (l > 3 && strcmp(spec->name + l - 3, "_us") == 0) {
    spec->name[l - 2] = 'n';
    spec->factor = 1e3;
    spec->keep_raw = 1;
  }
}

static const char *find_in(const char *s, size_t n, const char *needle) { return pl_find(s, n, needle); }

/* Parses a number at p (up to end), skipping leading '*', spaces and '+'. */
static int num_at(const char *p, const char *end, double *v, const char **after) {
  while (p < end && (*p == '*' || *p == ' ')) p++;
  const char *q = p;
  while (q < end &&
         ((*q >= '0' && *q <= '9') || *q == '.' || *q == ',' || *q == '-' || *q == '+' || *q == 'e' || *q == 'E'))
    q++;
  size_t n = (size_t)(q - p);
  while (n > 0 && (p[n - 1] == ',' || p[n - 1] == '.')) n--; /* sentence punctuation */
  if (n == 0 || pl_parse_number_sep(p, n, 0, v) != 0) return -1;
  if (after) *after = p + n;
  return 0;
}

/* The heading text without '#', spaces and a leading "N. " number. */
static void heading_text(const char *s, size_t n, const char **hs, size_t *hn) {
  while (n > 0 && *s == '#') {
    s++;
    n--;
  }
  pl_trim(&s, &n);
  size_t i = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  if (i > 0 && i + 1 < n && s[i] == '.' && s[i + 1] == ' ') {
    s += i + 2;
    n -= i + 2;
  }
  *hs = s;
  *hn = n;
}

/* "Strict Performance Comparison: SUBJECT (PID: N)" -> meta title, subject, pid. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
title_meta(pl_profile *p, const char *hs, size_t hn) {
  pl_profile_meta_str(p, "title", hs, hn);
  const char *pid = pl_find(hs, hn, "(PID:");
  const char *colon = memchr(hs, ':', hn);
  if (pid) {
    double v;
    if (num_at(pid + 5, hs + hn, &v, NULL) == 0) pl_profile_meta_num(p, "pid", v);
  }
  if (colon && (!pid || colon < pid)) {
    const char *subj = colon + 1;
    size_t sn = (size_t)((pid ? pid : hs + hn) - subj);
    pl_trim(&subj, &sn);
    if (sn) pl_profile_meta_str(p, "subject", subj, sn);
  }
}

typedef struct finding {
  pl_table *t, *m;
  int open;
  pl_buf corr;
  int c_fn, c_short, c_dev, c_dir, c_from, c_to, c_dppt, c_sig, c_p, c_corr, c_line;
  int m_idx, m_metric, m_dir, m_from, m_to, m_line;
  int64_t index;
} finding;

static void finding_close(finding *f) {
  if (!f->open) return;
  if (f->corr.len) pl_row_put_str(f->t, f->c_corr, f->corr.data, f->corr.len);
  pl_row_end(f->t);
  f->open = 0;
  f->corr.len = 0;
}

static void finding_init(finding *f) {
  memset(f, 0, sizeof *f);
  pl_buf_init(&f->corr);
  f->t = pl_table_new("key_findings");
  f->c_fn = pl_table_add_doc_col(f->t, "function", PL_STR, "function (kernel) the finding is about");
  f->c_short = pl_table_add_doc_col(f->t, "short_name", PL_STR,
                                    "short kernel name (no return type, namespaces, templates, arguments)");
  f->c_dev = pl_table_add_doc_col(f->t, "device", PL_STR, "device, e.g. GPU 7");
  f->c_dir = pl_table_add_doc_col(f->t, "direction", PL_STR,
                                  "increased / decreased: direction of its share of cycle time (beta)");
  f->c_from = pl_table_add_doc_col(f->t, "beta_from", PL_NUM, "share of cycle time in the normal run, percent");
  f->c_to = pl_table_add_doc_col(f->t, "beta_to", PL_NUM, "share of cycle time in the abnormal run, percent");
  f->c_dppt = pl_table_add_doc_col(f->t, "delta_ppt", PL_NUM, "change of the share, percentage points as printed");
  f->c_sig =
      pl_table_add_doc_col(f->t, "significant", PL_BOOL, "the report calls the change statistically significant");
  f->c_p = pl_table_add_doc_col(f->t, "p_value", PL_NUM, "p-value of the share change");
  f->c_corr = pl_table_add_doc_col(f->t, "correlated", PL_STR,
                                   "correlated metric changes, 'metric: increased from A to B; ...'");
  f->c_line = pl_table_add_doc_col(f->t, "line", PL_INT, "input line of the finding");
  f->m = pl_table_new_like("finding_metrics", f->t);
  f->m_idx = pl_table_add_col(f->m, "finding", PL_INT);
  f->m_metric = pl_table_add_col(f->m, "metric", PL_STR);
  f->m_dir = pl_table_add_col(f->m, "direction", PL_STR);
  f->m_from = pl_table_add_col(f->m, "from", PL_NUM);
  f->m_to = pl_table_add_doc_col(f->m, "to", PL_NUM, "mean value in the abnormal run");
  f->m_line = pl_table_add_doc_col(f->m, "line", PL_INT, "input line");
  pl_table_set_doc(f->m, f->m_idx, "row of key_findings (1-based) this metric change belongs to");
  pl_table_set_doc(f->m, f->m_metric, "resource metric (mu)");
  pl_table_set_doc(f->m, f->m_dir, "increased / decreased");
  pl_table_set_doc(f->m, f->m_from, "mean value in the normal run (metric's own unit)");
}

/* Times in the summary to ns: the metric names its unit, e.g. "Avg Cycle
** Time (us)"; a column "unit" says which rows were converted. */
static void summary_units(pl_table *t) {
  int cm = pl_table_col(t, "metric"), cu = pl_table_add_col(t, "unit", PL_STR);
  pl_table_set_doc(t, cu, "unit of normal/abnormal/delta after conversion (ns for times), empty for counts");
  const char *vc[3] = { "normal", "abnormal", "delta" };
  for (size_t r = 0; cm >= 0 && cu >= 0 && r < t->nrows; r++) {
    size_t ml;
    const char *mt = pl_cell_str(t, cm, r, &ml);
    if (!mt || ml < 4 || mt[ml - 1] != ')') continue;
    const char *op = memchr(mt, '(', ml);
    if (!op) continue;
    pl_unit u;
    if (pl_unit_lookup(op + 1, (size_t)(mt + ml - 1 - (op + 1)), &u) != 0 || strcmp(u.base, "ns") != 0) continue;
    for (int k = 0; k < 3; k++) {
      int ci = pl_table_col(t, vc[k]);
      if (ci >= 0 && t->cols[ci]->type == PL_NUM && !pl_cell_missing(t, ci, r))
        t->cols[ci]->v.num[r] = pl_unit_scale(t->cols[ci]->v.num[r], u.factor);
    }
    t->cols[cu]->v.str[r] = pl_pool_intern(t->pool, "ns", 2);
  }
}

/* A bullet of the Key Findings section at line: a finding
** ("- **`NAME` on device `DEV`:**"), its share change (beta), or a
** correlated metric change.  ts/tn: the trimmed line, s/n: all of it.
** 0, or -1 with err set. */
static int finding_line(finding *f, const char *s, size_t n, const char *ts, size_t tn, size_t line, pl_profile *p,
                        pl_err *err) {
  char shortbuf[1024];
  size_t indent = (size_t)(ts - s);
  if (indent == 0) {
    /* - **`NAME` on device `DEV`:** */
    finding_close(f);
    const char *a = find_in(ts, tn, "**`");
    const char *on = find_in(ts, tn, "` on device `");
    if (!a || !on || on < a) {
      pl_err_expected(err, line, 1, "a finding '- **`FUNCTION` on device `DEVICE`:**'", s, n);
      return -1;
    }
    const char *fn = a + 3;
    size_t fl = (size_t)(on - fn);
    const char *dv = on + 13;
    const char *de = memchr(dv, '`', (size_t)(ts + tn - dv));
    size_t dl = de ? (size_t)(de - dv) : 0;
    f->index++;
    f->open = 1;
    pl_row_put_str(f->t, f->c_fn, fn, fl);
    size_t sn = pl_short_name(fn, fl, shortbuf, sizeof shortbuf);
    pl_row_put_str(f->t, f->c_short, shortbuf, sn);
    if (dl) pl_row_put_str(f->t, f->c_dev, dv, dl);
    pl_row_put_int(f->t, f->c_line, (int64_t)line);
    return 0;
  }
  if (!f->open) {
    pl_profile_diag(p, line, "skipped a nested bullet outside a finding");
    return 0;
  }
  const char *beta = find_in(ts, tn, "(\xce\xb2)");
  if (beta) {
    const char *dir = find_in(ts, tn, "**increased**")   ? "increased"
                      : find_in(ts, tn, "**decreased**") ? "decreased"
                                                         : NULL;
    if (dir) pl_row_put_str(f->t, f->c_dir, dir, strlen(dir));
    const char *fr = find_in(ts, tn, "from **"), *to = find_in(ts, tn, "to **");
    double v;
    const char *after = NULL;
    if (!fr || num_at(fr + 5, ts + tn, &v, &after) != 0) {
      pl_err_expected(err, line, (size_t)(ts - s) + 1, "'from **N%**' in the finding", ts, tn);
      return -1;
    }
    pl_row_put_num(f->t, f->c_from, v);
    if (!to || num_at(to + 3, ts + tn, &v, &after) != 0) {
      pl_err_expected(err, line, (size_t)(ts - s) + 1, "'to **N%**' in the finding", ts, tn);
      return -1;
    }
    pl_row_put_num(f->t, f->c_to, v);
    const char *par = after ? memchr(after, '(', (size_t)(ts + tn - after)) : NULL;
    if (par && num_at(par + 1, ts + tn, &v, NULL) == 0) pl_row_put_num(f->t, f->c_dppt, v);
    pl_row_put_bool(f->t, f->c_sig,
                    find_in(ts, tn, "not statistically significant") == NULL &&
                        find_in(ts, tn, "statistically significant") != NULL);
    const char *pv = find_in(ts, tn, "p-value:");
    if (pv && num_at(pv + 8, ts + tn, &v, NULL) == 0) pl_row_put_num(f->t, f->c_p, v);
    return 0;
  }
  const char *mk = find_in(ts, tn, "**`");
  const char *me = mk ? find_in(mk + 3, (size_t)(ts + tn - mk - 3), "`**") : NULL;
  if (mk && me) {
    const char *mname = mk + 3;
    size_t ml = (size_t)(me - mname);
    const char *rest = me + 3;
    size_t rl = (size_t)(ts + tn - rest);
    const char *dir = find_in(rest, rl, "increased")   ? "increased"
                      : find_in(rest, rl, "decreased") ? "decreased"
                                                       : NULL;
    const char *fr = find_in(rest, rl, "from "), *to = find_in(rest, rl, " to ");
    double a, b;
    pl_row_put_int(f->m, f->m_idx, f->index);
    pl_row_put_str(f->m, f->m_metric, mname, ml);
    if (dir) pl_row_put_str(f->m, f->m_dir, dir, strlen(dir));
    if (fr && num_at(fr + 5, ts + tn, &a, NULL) == 0) pl_row_put_num(f->m, f->m_from, a);
    if (to && num_at(to + 4, ts + tn, &b, NULL) == 0) pl_row_put_num(f->m, f->m_to, b);
    pl_row_put_int(f->m, f->m_line, (int64_t)line);
    pl_row_end(f->m);
    /* text: "metric: increased from A to B" */
    const char *txt = rest;
    size_t txl = rl;
    while (txl > 0 && (*txt == ':' || *txt == ' ')) {
      txt++;
      txl--;
    }
    while (txl > 0 && txt[txl - 1] == '.') txl--;
    if (f->corr.len) pl_buf_adds(&f->corr, "; ");
    pl_buf_add(&f->corr, mname, ml);
    pl_buf_adds(&f->corr, ": ");
    pl_buf_add(&f->corr, txt, txl);
    return 0;
  }
  pl_profile_diag(p, line, "skipped a finding line: %.*s", (int)(tn > 60 ? 60 : tn), ts);
  return 0;
}

/* A legend bullet "- **term**: definition" into legend (term,
** definition, line). */
static void legend_line(pl_table *legend, const char *ts, size_t tn, size_t line, pl_profile *p) {
  const char *a = find_in(ts, tn, "**");
  const char *b = a ? find_in(a + 2, (size_t)(ts + tn - a - 2), "**") : NULL;
  if (!a || !b) {
    pl_profile_diag(p, line, "skipped a legend line without a **term**");
    return;
  }
  const char *term = a + 2;
  size_t tl = (size_t)(b - term);
  const char *def = b + 2;
  size_t dl = (size_t)(ts + tn - def);
  if (dl && *def == ':') {
    def++;
    dl--;
  }
  pl_trim(&def, &dl);
  pl_row_put_str(legend, 0, term, tl);
  if (dl) pl_row_put_str(legend, 1, def, dl);
  pl_row_put_int(legend, 2, (int64_t)line);
  pl_row_end(legend);
  return;
}

enum { M_NONE, M_FINDINGS, M_LEGEND, M_OVERVIEW };

/* The parse state: the heading and section being read, the mode their
** names set, and the tables made so far. */
typedef struct cr_parse_st {
  cr_state st;
  pl_profile *p;
  const pl_parse_opts *o;
  pl_err *err;
  const char *hs, *sec;
  size_t hn, secn;
  int mode, have_title, ngeneric;
  pl_buf overview;
  finding f;
  pl_table *legend;
  pl_table *tabs[64];
  int ntabs;
} cr_parse_st;

static void cr_init(cr_parse_st *x) {
  snprintf(x->st.label1, sizeof x->st.label1, "normal");
  snprintf(x->st.label2, sizeof x->st.label2, "abnormal");
  x->hs = x->sec = "";
  x->mode = M_NONE;
  pl_buf_init(&x->overview);
  finding_init(&x->f);
  pl_table *legend = x->legend = pl_table_new("legend");
  int lg_term = pl_table_add_col(legend, "term", PL_STR);
  int lg_def = pl_table_add_col(legend, "definition", PL_STR);
  int lg_line = pl_table_add_col(legend, "line", PL_INT);
  pl_table_set_doc(legend, lg_term, "term defined (Markdown emphasis removed)");
  pl_table_set_doc(legend, lg_def, "its definition, Markdown text as printed");
  pl_table_set_doc(legend, lg_line, "input line");
}

static int cr_fail(cr_parse_st *x) {
  finding_close(&x->f);
  pl_table_free(x->f.t);
  pl_table_free(x->f.m);
  pl_table_free(x->legend);
  for (int i = 0; i < x->ntabs; i++) pl_table_free(x->tabs[i]);
  pl_buf_free(&x->f.corr);
  pl_buf_free(&x->overview);
  return -1;
}

/* A Markdown heading: the title, a section, or the block that sets the mode. */
static void cr_heading(cr_parse_st *x, const char *ts, size_t tn) {
  finding_close(&x->f);
  size_t lvl = 0;
  while (lvl < tn && ts[lvl] == '#') lvl++;
  heading_text(ts, tn, &x->hs, &x->hn);
  const char *hs = x->hs;
  size_t hn = x->hn;
  if (lvl == 1 && !x->have_title) {
    x->have_title = 1;
    title_meta(x->p, hs, hn);
    return;
  }
  if (lvl <= 2) {
    x->sec = hs;
    x->secn = hn;
  }
  if (find_in(hs, hn, "Key Findings")) x->mode = M_FINDINGS;
  else if (find_in(hs, hn, "Legend")) x->mode = M_LEGEND;
  else if (pl_starts(hs, hn, "Overview")) x->mode = M_OVERVIEW;
  else x->mode = M_NONE;
}

/* The name of the table under the current heading (header row s[0..n)),
** and which known table it is (st.which, -1: a generic one). */
static const char *cr_table_name(cr_parse_st *x, const char *s, size_t n, char *gname, size_t gsz) {
  const char *hs = x->hs;
  size_t hn = x->hn;
  if (find_in(hs, hn, "Performance Summary") || (find_in(x->sec, x->secn, "Summary") && find_in(hs, hn, "Summary"))) {
    x->st.which = 0;
    /* run labels from the header: | Metric | LABEL1 | LABEL2 | ... */
    pl_md_cell hc[PL_MD_MAXCELLS];
    int nh = pl_md_split(s, n, hc, PL_MD_MAXCELLS);
    if (nh >= 3) {
      pl_md_snake(hc[1].s, hc[1].n, x->st.label1, sizeof x->st.label1);
      pl_md_snake(hc[2].s, hc[2].n, x->st.label2, sizeof x->st.label2);
      pl_profile_meta_str(x->p, "baseline_label", hc[1].s, hc[1].n);
      pl_profile_meta_str(x->p, "compare_label", hc[2].s, hc[2].n);
    }
    return "summary";
  }
  if (find_in(hs, hn, "Cycle Duration")) {
    x->st.which = 1;
    return "cycle_distribution";
  }
  if (find_in(hs, hn, "Detailed comparison") || find_in(hs, hn, "Detailed Comparison")) {
    x->st.which = 2;
    return "details";
  }
  x->st.which = -1;
  size_t gl = pl_md_snake(hs, hn, gname, gsz - 8);
  if (gl == 0) snprintf(gname, gsz, "table");
  for (int i = 0; i < x->ntabs; i++)
    if (strcmp(x->tabs[i]->name, gname) == 0) {
      size_t k = strlen(gname);
      snprintf(gname + k, gsz - k, "_%d", ++x->ngeneric + 1);
      break;
    }
  return gname;
}

/* A Markdown table starting at line l.  0, or -1 with err set. */
static int cr_table(cr_parse_st *x, pl_lines *c, pl_line *l) {
  finding_close(&x->f);
  if (x->ntabs >= 64) return pl_err_set(x->err, c->lineno, 1, "more than 64 tables in one report");
  char gname[96];
  const char *name = cr_table_name(x, l->s, l->n, gname, sizeof gname);
  pl_table *t = pl_md_read_table_lenient(c, l, name, x->st.which >= 0 ? cr_map : NULL, &x->st, x->o, x->p, x->err);
  if (!t) return -1;
  if (x->st.which == 0) summary_units(t);
  if (pl_want_table(x->o, t->name)) x->tabs[x->ntabs++] = t;
  else pl_table_free(t);
  return 0;
}

/* A line that is neither a heading nor a table.  0, or -1 with err set. */
static int cr_text(cr_parse_st *x, const pl_line *l, size_t lineno, const char *ts, size_t tn) {
  pl_profile *p = x->p;
  if (ts[0] == '|') {
    pl_profile_diag(p, lineno, "skipped a '|' line that is not part of a Markdown table");
    return 0;
  }
  if (x->mode == M_FINDINGS && ts[0] == '-') return finding_line(&x->f, l->s, l->n, ts, tn, lineno, p, x->err);
  if (x->mode == M_LEGEND && ts[0] == '-') {
    legend_line(x->legend, ts, tn, lineno, p);
    return 0;
  }
  finding_close(&x->f);
  if (pl_starts(ts, tn, "**Recommendation:**")) {
    const char *r = ts + 19;
    size_t rn = tn - 19;
    pl_trim(&r, &rn);
    pl_profile_meta_str(p, "recommendation", r, rn);
    x->mode = M_NONE;
    return 0;
  }
  if (x->mode == M_OVERVIEW) {
    if (x->overview.len) pl_buf_addc(&x->overview, ' ');
    pl_buf_add(&x->overview, ts, tn);
    return 0;
  }
  pl_profile_diag(p, lineno, "skipped prose: %.*s", (int)(tn > 60 ? 60 : tn), ts);
  return 0;
}

/* The tables and metadata handed over. */
static void cr_finish(cr_parse_st *x) {
  pl_profile *p = x->p;
  const pl_parse_opts *o = x->o;
  if (x->overview.len) pl_profile_meta_str(p, "overview", x->overview.data, x->overview.len);
  pl_profile_meta_str(p, "tool", "performance comparison report", strlen("performance comparison report"));
  for (int i = 0; i < x->ntabs; i++) pl_profile_add_table(p, x->tabs[i]);
  if (pl_want_table(o, "key_findings")) pl_profile_add_table(p, x->f.t);
  else pl_table_free(x->f.t);
  if (pl_want_table(o, "finding_metrics")) pl_profile_add_table(p, x->f.m);
  else pl_table_free(x->f.m);
  if (pl_want_table(o, "legend")) pl_profile_add_table(p, x->legend);
  else pl_table_free(x->legend);
  pl_buf_free(&x->f.corr);
  pl_buf_free(&x->overview);
}

static int cr_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, in->data, in->len);
  cr_parse_st x;
  memset(&x, 0, sizeof x);
  x.p = p;
  x.o = o;
  x.err = err;
  cr_init(&x);
  while (pl_lines_next(&c, &l)) {
    if (o && o->interrupt && *o->interrupt) {
      pl_err_set(err, c.lineno, 1, "interrupted");
      return cr_fail(&x);
    }
    if (pl_is_blank(l.s, l.n)) {
      if (x.mode == M_OVERVIEW && x.overview.len) x.mode = M_NONE;
      continue;
    }
    const char *ts = l.s;
    size_t tn = l.n;
    pl_trim(&ts, &tn);
    if (ts[0] == '#') cr_heading(&x, ts, tn);
    else if (pl_md_table_starts(&c, l.s, l.n)) {
      if (cr_table(&x, &c, &l) != 0) return cr_fail(&x);
    } else if (cr_text(&x, &l, c.lineno, ts, tn) != 0) return cr_fail(&x);
  }
  finding_close(&x.f);
  if (!x.have_title && x.ntabs == 0) {
    pl_err_expected(err, 1, 1, "a comparison report ('# ... Comparison ...' and Markdown tables)", in->data, in->len);
    return cr_fail(&x);
  }
  cr_finish(&x);
  return 0;
}

static int cr_detect(const char *data, size_t len) {
  int score = 0;
  if (pl_find(data, len, "Performance Comparison")) score += 40;
  if (pl_find(data, len, "Suspicion Score")) score += 30;
  if (pl_find(data, len, "Cycle Duration Distribution")) score += 20;
  if (pl_find(data, len, "\xce\xb2_normal") || pl_find(data, len, "(\xce\xb2)")) score += 10;
  if (score < 40) return 0; /* needs two markers at least */
  if (!pl_find(data, len, "|---") && !pl_find(data, len, "|:--") && !pl_find(data, len, "| ---")) return 0;
  return score > 95 ? 95 : score;
}

const pl_format pl_fmt_comparison_report = {
  "comparison-report",
  "Markdown performance-comparison reports (normal vs abnormal run): summary, cycle distribution, key findings, "
  "details, legend",
  "summary cycle_distribution key_findings finding_metrics details legend",
  cr_detect,
  cr_parse,
};

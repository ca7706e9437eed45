/*
** ncu_summary.c -- the `ncu --print-summary per-kernel` layout, read by
** format "ncu-text" when it meets its kernel lines:
**
**   [69642] transpose@127.0.0.1
**     NAME (32, 32, 1)x(32, 32, 1), Device 0, CC 8.6, Invocations 14
**     NAME, Block Size 256, Grid Size 32, Device 0, 1 invocations   (older)
**       Section: GPU Speed Of Light Throughput
**       ------------- ----------- --------- --------- ---------      (absent in the older form)
**       Metric Name   Metric Unit   Minimum   Maximum   Average
**       ------------- ----------- --------- --------- ---------
**       Duration          usecond     32.06     33.10     32.58
**       ------------- ----------- --------- --------- ---------
**
** One row per kernel (not per launch): table kernel_summary (name,
** short_name, calls = Invocations, total/mean/min/max_ns from the Duration
** metric when printed, share_pct, grid and block, device, cc) and table
** metrics (kernel_id, section, metric, unit, base_unit, min, max, value =
** the average, in base units).  Other lines: ==PROF== and shell lines are
** diagnostics, the program's output goes to program_output.
*/
#include "format.h"
#include "ncu.h"
#include "names.h"
#include "scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_space(char c) { return c == ' ' || c == '\t'; }

typedef struct shead {
  const char *name;
  size_t nn;
  int64_t calls, dev, grid[3], block[3], gsize, bsize;
  int has_dims;
  const char *cc;
  size_t ncc;
} shead;

/* Fields after the name: ", Device N", ", CC X.Y", ", Invocations N",
** ", N invocations", ", Block Size N", ", Grid Size N". */
static int field(const char *f, size_t n, shead *h) {
  size_t i = 0;
  int64_t v;
  if (pl_starts(f, n, "Device ")) {
    i = 7;
    if (pl_ncu_read_uint(f, n, &i, &v) && i == n) {
      h->dev = v;
      return 1;
    }
    return 0;
  }
  if (pl_starts(f, n, "CC ")) {
    h->cc = f + 3;
    h->ncc = n - 3;
    return n > 3;
  }
  if (pl_starts(f, n, "Invocations ")) {
    i = 12;
    if (pl_ncu_read_uint(f, n, &i, &v) && i == n) {
      h->calls = v;
      return 1;
    }
    return 0;
  }
  if (pl_starts(f, n, "Block Size ")) {
    i = 11;
    if (pl_ncu_read_uint(f, n, &i, &v) && i == n) {
      h->bsize = v;
      return 1;
    }
    return 0;
  }
  if (pl_starts(f, n, "Grid Size ")) {
    i = 10;
    if (pl_ncu_read_uint(f, n, &i, &v) && i == n) {
      h->gsize = v;
      return 1;
    }
    return 0;
  }
  if (pl_ncu_read_uint(f, n, &i, &v) && i + 12 == n && memcmp(f + i, " invocations", 12) == 0) {
    h->calls = v;
    return 1;
  }
  return 0;
}

/* The kernel line: fields from the end, back to the first that is not one. */
static int parse_head(const char *t, size_t n, shead *h) {
  memset(h, 0, sizeof *h);
  h->calls = h->dev = h->gsize = h->bsize = -1;
  size_t end = n;
  int nf = 0;
  while (end > 0) {
    size_t c = end;
    while (c > 1 && !(t[c - 2] == ',' && t[c - 1] == ' ')) c--;
    if (c <= 1) break;
    if (!field(t + c, end - c, h)) break;
    nf++;
    end = c - 2;
  }
  if (h->calls < 0 || nf < 2) return 0;
  /* NAME (g, g, g)x(b, b, b) */
  size_t pn = end;
  if (pn > 0 && t[pn - 1] == ')') {
    const char *bx = NULL;
    for (size_t k = pn; k-- > 2;)
      if (t[k] == '(' && t[k - 1] == 'x' && t[k - 2] == ')') {
        bx = t + k - 2;
        break;
      }
    if (bx) {
      size_t j = (size_t)(bx - t) + 2, g = (size_t)(bx - t);
      while (g > 0 && t[g] != '(') g--;
      size_t jj = g;
      if (pl_ncu_read_dim3(t, pn, &j, h->block) && j == pn && pl_ncu_read_dim3(t, pn, &jj, h->grid) &&
          jj == (size_t)(bx - t) + 1) {
        h->has_dims = 1;
        pn = g;
      }
    }
  }
  while (pn > 0 && is_space(t[pn - 1])) pn--;
  if (pn == 0) return 0;
  h->name = t;
  h->nn = pn;
  return 1;
}

int pl_ncu_summary_head(const char *t, size_t n) {
  shead h;
  return parse_head(t, n, &h);
}

/* Dash groups of a rule line: count and the start column of the second (unit). */
static int dashes(const char *s, size_t n, size_t *unit_col) {
  size_t i = 0;
  int g = 0;
  while (i < n && is_space(s[i])) i++;
  if (i >= n || s[i] != '-') return 0;
  while (i < n) {
    if (s[i] != '-') return is_space(s[i]) || s[i] == '\r' ? g : 0;
    if (g == 1) *unit_col = i;
    while (i < n && s[i] == '-') i++;
    g++;
    while (i < n && (is_space(s[i]) || s[i] == '\r')) i++;
  }
  return g;
}

typedef struct sstate {
  pl_table *ks, *m, *po;
  int c_name, c_short, c_calls, c_total, c_mean, c_min, c_max, c_share, c_gx, c_gy, c_gz, c_bx, c_by, c_bz, c_grid,
      c_block, c_dev, c_cc, c_proc, c_pid, c_line;
  int m_kid, m_sec, m_metric, m_unit, m_base, m_min, m_max, m_value;
  int po_line, po_text;
  int open;
  int64_t nk;
  double dur[3];
  int has_dur;
  char proc[128];
  int64_t pid;
  char cc[16];
  int locale;
  /* the line loop: the current section, the metrics table being read
  ** (intab 1: header seen, 2: rows) and its unit column */
  const char *sec;
  size_t nsec;
  int intab;
  size_t unit_col;
  pl_profile *p;
  pl_err *err;
} sstate;

static void close_kernel(sstate *s) {
  if (!s->open) return;
  if (s->has_dur) {
    pl_row_put_num(s->ks, s->c_min, s->dur[0]);
    pl_row_put_num(s->ks, s->c_max, s->dur[1]);
    pl_row_put_num(s->ks, s->c_mean, s->dur[2]);
  }
  pl_row_end(s->ks);
  s->open = 0;
  s->nk++;
}

/* "1,234.5", "1.21", "n/a": 1 with *v (NaN for a value ncu could not give). */
static int value(sstate *s, const char *t, size_t n, double *v) {
  if ((n == 3 && (memcmp(t, "n/a", 3) == 0 || memcmp(t, "N/A", 3) == 0)) || pl_ncu_not_collected(t, n)) {
    *v = NAN;
    return 1;
  }
  if (n > 4 && memcmp(t, "(!) ", 4) == 0) {
    t += 4;
    n -= 4;
  } /* a number ncu flags */
  return pl_ncu_parse_value(t, n, &s->locale, v) == 0 && isfinite(*v);
}

/* The three tables and their columns. */
static void sum_tables(sstate *s) {
  pl_table *ks = s->ks = pl_table_new("kernel_summary");
  s->c_name = pl_table_add_doc_col(ks, "name", PL_STR, NULL);
  s->c_short = pl_table_add_doc_col(ks, "short_name", PL_STR, "name without return type, arguments or templates");
  s->c_calls = pl_table_add_doc_col(ks, "calls", PL_INT, "invocations profiled (Invocations N / N invocations)");
  s->c_total = pl_table_add_doc_col(ks, "total_ns", PL_NUM, "mean_ns x calls (the summary prints no sum)");
  s->c_mean = pl_table_add_doc_col(ks, "mean_ns", PL_NUM, "Average of the Duration metric, ns");
  s->c_min = pl_table_add_doc_col(ks, "min_ns", PL_NUM, "Minimum of the Duration metric, ns");
  s->c_max = pl_table_add_doc_col(ks, "max_ns", PL_NUM, "Maximum of the Duration metric, ns");
  s->c_share = pl_table_add_doc_col(ks, "share_pct", PL_NUM, "total_ns / the sum over kernels x 100");
  s->c_gx = pl_table_add_doc_col(ks, "grid_x", PL_INT, "grid dimension x, blocks");
  s->c_gy = pl_table_add_doc_col(ks, "grid_y", PL_INT, "grid dimension y, blocks");
  s->c_gz = pl_table_add_doc_col(ks, "grid_z", PL_INT, "grid dimension z, blocks");
  s->c_bx = pl_table_add_doc_col(ks, "block_x", PL_INT, "block dimension x, threads");
  s->c_by = pl_table_add_doc_col(ks, "block_y", PL_INT, "block dimension y, threads");
  s->c_bz = pl_table_add_doc_col(ks, "block_z", PL_INT, "block dimension z, threads");
  s->c_grid = pl_table_add_doc_col(ks, "grid_size", PL_NUM, "blocks per grid");
  s->c_block = pl_table_add_doc_col(ks, "block_size", PL_NUM, "threads per block");
  s->c_dev = pl_table_add_doc_col(ks, "device", PL_INT, "CUDA device ordinal");
  s->c_cc = pl_table_add_doc_col(ks, "cc", PL_STR, "compute capability");
  s->c_proc = pl_table_add_doc_col(ks, "process", PL_STR, "profiled process name");
  s->c_pid = pl_table_add_doc_col(ks, "pid", PL_INT, "profiled process id");
  s->c_line = pl_table_add_doc_col(ks, "line", PL_INT, "input line of the kernel");
  pl_table *m = s->m = pl_table_new("metrics");
  s->m_kid = pl_table_add_doc_col(m, "kernel_id", PL_INT, "row of kernel_summary (0-based)");
  s->m_sec = pl_table_add_doc_col(m, "section", PL_STR, "section name as printed");
  s->m_metric = pl_table_add_doc_col(m, "metric", PL_STR, "metric name as printed");
  s->m_unit = pl_table_add_doc_col(m, "unit", PL_STR, "unit as printed");
  s->m_base = pl_table_add_doc_col(m, "base_unit", PL_STR, "unit of min, max and value");
  s->m_min = pl_table_add_doc_col(m, "min", PL_NUM, "Minimum over the invocations, base unit");
  s->m_max = pl_table_add_doc_col(m, "max", PL_NUM, "Maximum over the invocations, base unit");
  s->m_value = pl_table_add_doc_col(m, "value", PL_NUM, "Average over the invocations, base unit");
  pl_table *po = s->po = pl_table_new("program_output");
  s->po_line = pl_table_add_doc_col(po, "line", PL_INT, "input line");
  s->po_text = pl_table_add_doc_col(po, "text", PL_STR, "a line the profiled program printed");
}

/* A metric row: NAME [UNIT] MIN MAX AVG, three values from the end.  0, or
** -1 with err set. */
static int metric_row(sstate *s, const char *t, size_t n, size_t ind, size_t lineno) {
  const char *tok[3];
  size_t tn[3];
  size_t e = n;
  int k = 0;
  for (; k < 3; k++) {
    while (e > 0 && is_space(t[e - 1])) e--;
    size_t b = e;
    while (b > 0 && !is_space(t[b - 1])) b--;
    if (b == e) break;
    /* "(!) nan": a value of two words */
    if (b >= 4 && memcmp(t + b - 4, "(!) ", 4) == 0) b -= 4;
    tok[2 - k] = t + b;
    tn[2 - k] = e - b;
    e = b;
  }
  double v[3];
  int ok = k == 3;
  for (int j = 0; ok && j < 3; j++) ok = value(s, tok[j], tn[j], &v[j]);
  while (e > 0 && is_space(t[e - 1])) e--;
  if (!ok || e == 0)
    return pl_err_expected(s->err, lineno, ind + 1,
                           "a metric row 'NAME UNIT MINIMUM MAXIMUM AVERAGE' or the closing '-----' rule", t, n);
  /* the unit: the last word when it starts in the unit column */
  const char *nm = t, *un = NULL;
  size_t nnm = e, nun = 0;
  size_t b = e;
  while (b > 0 && !is_space(t[b - 1])) b--;
  if (b > 0 && s->unit_col && ind + b >= s->unit_col) {
    un = t + b;
    nun = e - b;
    nnm = b;
  }
  while (nnm > 0 && is_space(nm[nnm - 1])) nnm--;
  pl_unit u = { 1, NULL };
  int known = nun && pl_unit_lookup(un, nun, &u) == 0;
  for (int j = 0; j < 3; j++)
    if (known && !isnan(v[j])) v[j] = pl_unit_scale(v[j], u.factor);
  pl_table *m = s->m;
  pl_row_put_int(m, s->m_kid, s->nk);
  pl_row_put_str(m, s->m_sec, s->sec, s->nsec);
  pl_row_put_str(m, s->m_metric, nm, nnm);
  if (nun) {
    pl_row_put_str(m, s->m_unit, un, nun);
    if (known) pl_row_put_str(m, s->m_base, u.base, strlen(u.base));
    else pl_row_put_str(m, s->m_base, un, nun);
  }
  if (!isnan(v[0])) pl_row_put_num(m, s->m_min, v[0]);
  if (!isnan(v[1])) pl_row_put_num(m, s->m_max, v[1]);
  if (!isnan(v[2])) pl_row_put_num(m, s->m_value, v[2]);
  pl_row_end(m);
  if (known && strcmp(u.base, "ns") == 0 &&
      ((nnm == 8 && memcmp(nm, "Duration", 8) == 0) || (nnm == 22 && memcmp(nm, "gpu__time_duration.sum", 22) == 0))) {
    memcpy(s->dur, v, sizeof v);
    s->has_dur = 1;
  }
  return 0;
}

/* The kernel line h opens a row of kernel_summary. */
static void kernel_row(sstate *s, const shead *h, size_t lineno) {
  pl_table *ks = s->ks;
  close_kernel(s);
  s->open = 1;
  s->has_dur = 0;
  char sb[1024];
  size_t sn = pl_short_name(h->name, h->nn, sb, sizeof sb);
  pl_row_put_str(ks, s->c_name, h->name, h->nn);
  pl_row_put_str(ks, s->c_short, sb, sn);
  pl_row_put_int(ks, s->c_calls, h->calls);
  if (h->has_dims) {
    pl_row_put_int(ks, s->c_gx, h->grid[0]);
    pl_row_put_int(ks, s->c_gy, h->grid[1]);
    pl_row_put_int(ks, s->c_gz, h->grid[2]);
    pl_row_put_int(ks, s->c_bx, h->block[0]);
    pl_row_put_int(ks, s->c_by, h->block[1]);
    pl_row_put_int(ks, s->c_bz, h->block[2]);
    pl_row_put_num(ks, s->c_grid, (double)(h->grid[0] * h->grid[1] * h->grid[2]));
    pl_row_put_num(ks, s->c_block, (double)(h->block[0] * h->block[1] * h->block[2]));
  } else {
    if (h->gsize >= 0) pl_row_put_num(ks, s->c_grid, (double)h->gsize);
    if (h->bsize >= 0) pl_row_put_num(ks, s->c_block, (double)h->bsize);
  }
  if (h->dev >= 0) pl_row_put_int(ks, s->c_dev, h->dev);
  if (h->cc) {
    pl_row_put_str(ks, s->c_cc, h->cc, h->ncc);
    if (s->cc[0] == '\0' && h->ncc < sizeof s->cc) {
      memcpy(s->cc, h->cc, h->ncc);
      s->cc[h->ncc] = '\0';
    }
  }
  if (s->proc[0]) pl_row_put_str(ks, s->c_proc, s->proc, strlen(s->proc));
  if (s->pid != PL_INT_NA) pl_row_put_int(ks, s->c_pid, s->pid);
  pl_row_put_int(ks, s->c_line, (int64_t)lineno);
}

/* "[pid] name@host": 1 when t[0..n) is one. */
static int process_line(sstate *s, const char *t, size_t n) {
  size_t i = 1;
  int64_t pid;
  const char *at = memchr(t, '@', n);
  if (!(pl_ncu_read_uint(t, n, &i, &pid) && i + 1 < n && t[i] == ']' && t[i + 1] == ' ' && at && at > t + i + 2))
    return 0;
  size_t pn = (size_t)(at - (t + i + 2));
  if (pn >= sizeof s->proc) pn = sizeof s->proc - 1;
  memcpy(s->proc, t + i + 2, pn);
  s->proc[pn] = '\0';
  s->pid = pid;
  return 1;
}

/* A line outside a metrics table: a section, a kernel line, the process
** line, ncu's messages, prompts, or the program's output.  0, or -1 with
** err set. */
static int other_line(sstate *s, const char *t, size_t n, size_t ind, size_t lineno) {
  s->intab = 0;
  if (pl_starts(t, n, "Section: ")) {
    if (!s->open)
      return pl_err_expected(s->err, lineno, ind + 1, "the kernel line 'NAME ..., Invocations N' before its sections",
                             t, n);
    s->sec = t + 9;
    s->nsec = n - 9;
    pl_trim(&s->sec, &s->nsec);
    s->unit_col = 0;
    return 0;
  }
  s->sec = NULL;
  shead h;
  if (t[0] != '=' && parse_head(t, n, &h)) {
    kernel_row(s, &h, lineno);
    return 0;
  }
  if (t[0] == '[' && process_line(s, t, n)) return 0;
  if (t[0] == '=' && (pl_starts(t, n, "==PROF==") || pl_starts(t, n, "==WARNING==") || pl_starts(t, n, "==ERROR=="))) {
    if (t[2] != 'P') pl_profile_diag(s->p, lineno, "ncu message: %.*s", (int)(n > 200 ? 200 : n), t);
    return 0;
  }
  if (t[0] == '$' || t[0] == '#') {
    pl_profile_diag(s->p, lineno, "skipped shell prompt, script header or heading");
    return 0;
  }
  pl_row_put_int(s->po, s->po_line, (int64_t)lineno);
  pl_row_put_str(s->po, s->po_text, t, n);
  pl_row_end(s->po);
  return 0;
}

/* Totals and shares from the Duration averages; the tables handed over. */
static void sum_finish(sstate *s, pl_profile *p, const pl_parse_opts *o) {
  pl_table *ks = s->ks;
  double sum = 0;
  for (size_t i = 0; i < ks->nrows; i++) {
    double mean = pl_cell_num(ks, s->c_mean, i);
    int64_t calls = pl_cell_int(ks, s->c_calls, i);
    if (!isnan(mean)) {
      ks->cols[s->c_total]->v.num[i] = mean * (double)calls;
      sum += mean * (double)calls;
    }
  }
  for (size_t i = 0; i < ks->nrows; i++) {
    double tot = pl_cell_num(ks, s->c_total, i);
    ks->cols[s->c_share]->v.num[i] = sum > 0 && !isnan(tot) ? 100 * tot / sum : NAN;
  }
  pl_profile_meta_str(p, "tool", "Nsight Compute", 14);
  pl_profile_meta_str(p, "layout", "print-summary per-kernel", 24);
  if (s->cc[0]) pl_profile_meta_str(p, "cc", s->cc, strlen(s->cc));
  if (s->proc[0]) pl_profile_meta_str(p, "process", s->proc, strlen(s->proc));
  if (s->pid != PL_INT_NA) pl_profile_meta_num(p, "pid", (double)s->pid);
  if (s->locale) pl_profile_meta_str(p, "number_format", "locale (space groups, decimal comma)", 36);
  pl_profile_add_table(p, ks);
  if (pl_want_table(o, "metrics")) pl_profile_add_table(p, s->m);
  else pl_table_free(s->m);
  if (pl_want_table(o, "program_output")) pl_profile_add_table(p, s->po);
  else pl_table_free(s->po);
}

int pl_ncu_summary_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  sstate s;
  memset(&s, 0, sizeof s);
  s.pid = PL_INT_NA;
  s.p = p;
  s.err = err;
  sum_tables(&s);
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, in->data, in->len);
  while (pl_lines_next(&c, &l)) {
    if (o && o->interrupt && *o->interrupt) {
      pl_err_set(err, c.lineno, 1, "interrupted");
      goto fail;
    }
    const char *t = l.s;
    size_t n = l.n;
    pl_trim(&t, &n);
    size_t ind = (size_t)(t - l.s);
    if (n == 0) {
      if (s.intab == 2) s.intab = 0;
      continue;
    }
    size_t uc = 0;
    int g = t[0] == '-' ? dashes(l.s, l.n, &uc) : 0;
    if (g >= 5 && s.sec) {
      if (s.intab == 2) {
        s.intab = 0;
        continue;
      } /* the closing rule */
      s.unit_col = uc;
      s.intab = s.intab == 1 ? 2 : 1; /* old form: the rule after the header */
      continue;
    }
    if (s.sec && pl_starts(t, n, "Metric Name")) {
      s.intab = 1;
      continue;
    } /* the header row */
    if (s.intab && s.sec && s.open) {
      if (metric_row(&s, t, n, ind, c.lineno) == 0 || pl_lenient_skip(o, p, err)) continue;
      goto fail;
    }
    if (other_line(&s, t, n, ind, c.lineno) != 0) goto fail;
  }
  close_kernel(&s);
  if (s.nk == 0) {
    pl_err_set(err, 1, 1, "expected an 'ncu --print-summary per-kernel' summary, found no kernel line");
    goto fail;
  }
  sum_finish(&s, p, o);
  return 0;
fail:
  if (s.open) pl_row_discard(s.ks);
  pl_table_free(s.ks);
  pl_table_free(s.m);
  pl_table_free(s.po);
  return -1;
}

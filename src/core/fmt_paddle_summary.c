/*
** fmt_paddle_summary.c -- format "paddle-summary": the text that
** paddle.profiler's Profiler.summary() prints (seed 004):
**
**   ============Perf Summary============         pipe rows: | batch_cost | avg | max | min |
**   -------------------Device Summary-----------  followed by a column table
**   Time unit: ms
**   -------------------------  -------------     column separator (widths)
**   Name                       Calls   CPU Total / Avg / Max / Min / Ratio(%)  ...
**   -------------------------  -------------
**   ------------Thread: All threads merged----  thread banner rows
**   flash_attn dygraph         100     6.21 / 0.06 / 0.11 / 0.06 / 91.02  ...
**     flash_attn compute       ...               (two spaces of indent per tree level)
**   -------------------------  -------------     closing separator
**   Note:                                        trailer text up to a '-----' line
**
** Each summary becomes its own table (perf_summary, devices, overview,
** model_summary, distribution, operators, kernel_summary, memory_summary,
** userdefined; any other titled summary a generic table named after it) and
** the Note trailers go to `notes`.  Composite "Total / Avg / Max / Min /
** Ratio(%)" cells are split into five typed columns; times are converted from
** the "Time unit:" line to ns; "-" is missing.  Rows are split on runs of two
** or more spaces (cells never hold two spaces; names may overflow the column).
*/
#include "format.h"
#include "names.h"
#include "scan.h"
#include "units.h"
#include "mdtable.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { S_PERF, S_DEVICE, S_OVERVIEW, S_MODEL, S_DIST, S_OPERATOR, S_KERNEL, S_MEMMANIP, S_USERDEF, S_OTHER };

static const struct {
  const char *title;
  int kind;
  const char *table;
} sections[] = {
  { "Perf Summary", S_PERF, "perf_summary" },          { "Device Summary", S_DEVICE, "devices" },
  { "Overview Summary", S_OVERVIEW, "overview" },      { "Model Summary", S_MODEL, "model_summary" },
  { "Distribution Summary", S_DIST, "distribution" },  { "Operator Summary", S_OPERATOR, "operators" },
  { "Kernel Summary", S_KERNEL, "kernel_summary" },    { "Memory Manipulation Summary", S_MEMMANIP, "memory_summary" },
  { "UserDefined Summary", S_USERDEF, "userdefined" },
};

/* ---- line shapes --------------------------------------------------------- */

/* A separator: only '-' and spaces, at least 3 dashes. */
static int is_sep(const char *s, size_t n) {
  size_t dashes = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '-') dashes++;
    else if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
  }
  return dashes >= 3;
}

/* A title banner "-----TEXT-----" or "=====TEXT=====": returns 1 and the text. */
static int banner(const char *s, size_t n, const char **ts, size_t *tn) {
  pl_trim(&s, &n);
  if (n < 8) return 0;
  char ch = s[0];
  if (ch != '-' && ch != '=') return 0;
  size_t a = 0, b = n;
  while (a < n && s[a] == ch) a++;
  while (b > a && s[b - 1] == ch) b--;
  if (a < 3 || n - b < 3 || b <= a) return 0;
  const char *t = s + a;
  size_t k = b - a;
  pl_trim(&t, &k);
  int letter = 0;
  for (size_t i = 0; i < k; i++) {
    if ((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z')) letter = 1;
    if (t[i] == ' ' && i + 1 < k && t[i + 1] == ' ') return 0; /* a separator row with text? no */
  }
  if (!letter) return 0;
  *ts = t;
  *tn = k;
  return 1;
}

typedef struct field {
  const char *s;
  size_t n;
  size_t col;
} field;

/* Splits on runs of 2+ spaces (or tabs); the first field starts at the first
** non-blank.  Returns the count (at most max). */
static int split_fields(const char *s, size_t n, field *f, int max) {
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
  size_t i = 0;
  int k = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  while (i < n && k < max) {
    size_t st = i;
    while (i < n) {
      if (s[i] == '\t') break;
      if (s[i] == ' ' && i + 1 < n && (s[i + 1] == ' ' || s[i + 1] == '\t')) break;
      i++;
    }
    f[k].s = s + st;
    f[k].n = i - st;
    f[k].col = st + 1;
    k++;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  }
  return k;
}

/* "-" (or empty) -> missing (1); a number -> 0; else -1. */
static int cell_num(const char *s, size_t n, double *v) {
  pl_trim(&s, &n);
  if (n == 0 || (n == 1 && s[0] == '-')) return 1;
  if (s[n - 1] == '%') n--;
  return pl_parse_number_sep(s, n, 0, v) == 0 ? 0 : -1;
}

/* ---- the parser state ----------------------------------------------------- */

enum { R_NAME, R_CALLS, R_COMP, R_TIME, R_RATIO, R_UTIL, R_NUM, R_TEXT };

typedef struct colrole {
  int role;
  int col[6];
  int raw;
} colrole;

#define PS_MAXT    24
#define PS_MAXCOLS 24

typedef struct ps {
  pl_profile *p;
  const pl_parse_opts *o;
  pl_err *err;
  pl_table *tabs[PS_MAXT];
  int ntabs;
  pl_table *notes;
  int n_sec, n_note, n_text, n_line;
  double tfac;
  char shortbuf[1024];
} ps;

static pl_table *get_table(ps *st, const char *name) {
  for (int i = 0; i < st->ntabs; i++)
    if (strcmp(st->tabs[i]->name, name) == 0) return st->tabs[i];
  if (st->ntabs >= PS_MAXT) return NULL;
  pl_table *t = pl_table_new(name);
  st->tabs[st->ntabs++] = t;
  return t;
}

static void free_all(ps *st) {
  for (int i = 0; i < st->ntabs; i++) pl_table_free(st->tabs[i]);
  st->ntabs = 0;
  if (st->notes) pl_table_free(st->notes);
  st->notes = NULL;
}

/* Adds a column; when the name is taken by a column of another type (a
** header that spells one of the parser's own column names), the new column
** gets a "_2", "_3", ... suffix instead. */
static int time_factor(const char *s, size_t n, double *f) {
  pl_unit u;
  pl_trim(&s, &n);
  if (pl_unit_lookup(s, n, &u) != 0 || u.base == NULL || strcmp(u.base, "ns") != 0) return -1;
  *f = u.factor;
  return 0;
}

/* Reads a Note: trailer (the "Note:" line was just read) up to a line of
** dashes (consumed) or a title banner / end of input (not consumed). */
static void read_note(ps *st, pl_lines *c, const char *title, size_t titlen) {
  pl_buf b;
  pl_buf_init(&b);
  size_t first = c->lineno;
  pl_line l;
  const char *ts;
  size_t tn;
  while (pl_lines_peek(c, &l)) {
    if (banner(l.s, l.n, &ts, &tn)) break;
    pl_lines_next(c, &l);
    if (is_sep(l.s, l.n)) break;
    if (b.len) pl_buf_addc(&b, '\n');
    pl_buf_add(&b, l.s, l.n);
  }
  while (b.len > 0 && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == ' ')) b.len--;
  if (pl_want_table(st->o, "notes")) {
    if (!st->notes) {
      st->notes = pl_table_new("notes");
      pl_table_add_doc_col(st->notes, "section", PL_STR, "summary the note belongs to");
      pl_table_add_doc_col(st->notes, "text", PL_STR, "the note's text, lines joined with newlines");
      pl_table_add_doc_col(st->notes, "line", PL_INT, "input line of 'Note:'");
    }
    pl_row_put_str(st->notes, 0, title, titlen);
    if (b.len) pl_row_put_str(st->notes, 1, b.data, b.len);
    pl_row_put_int(st->notes, 2, (int64_t)first);
    pl_row_end(st->notes);
  }
  st->n_note++;
  pl_buf_free(&b);
}

/* ---- Perf Summary ----------------------------------------------------------- */

static int parse_perf(ps *st, pl_lines *c, const char *title, size_t titlen) {
  pl_table *t = pl_want_table(st->o, "perf_summary") ? get_table(st, "perf_summary") : NULL;
  double fac = 1e9; /* "Time Unit: s" is the default */
  char tunit[32] = "s", iunit[48] = "steps/s";
  int cm = -1, cu = -1, cr = -1, cl = -1, cv[8];
  int nhdr = 0, rows = 0;
  char hdr[8][32];
  pl_line l;
  const char *ts;
  size_t tn;
  (void)title;
  (void)titlen;
  while (pl_lines_peek(c, &l)) {
    if (banner(l.s, l.n, &ts, &tn)) break;
    if (pl_is_blank(l.s, l.n)) {
      pl_lines_next(c, &l);
      if (rows) break;
      continue;
    }
    pl_lines_next(c, &l);
    const char *s = l.s;
    size_t n = l.n;
    pl_trim(&s, &n);
    if (pl_starts(s, n, "Reader Ratio:")) {
      double v;
      if (cell_num(s + 13, n - 13, &v) == 0) pl_profile_meta_num(st->p, "reader_ratio_pct", v);
      continue;
    }
    if (pl_starts(s, n, "Time Unit:")) {
      const char *u = s + 10, *e = memchr(s, ',', n);
      size_t un = e ? (size_t)(e - u) : n - 10;
      pl_trim(&u, &un);
      if (time_factor(u, un, &fac) != 0)
        return pl_err_expected(st->err, c->lineno, 12, "a time unit (s, ms, us, ns)", u, un);
      snprintf(tunit, sizeof tunit, "%.*s", (int)un, u);
      const char *ip = pl_find(s, n, "IPS Unit:");
      if (ip) {
        const char *v = ip + 9;
        size_t vn = (size_t)(s + n - v);
        pl_trim(&v, &vn);
        snprintf(iunit, sizeof iunit, "%.*s", (int)vn, v);
        pl_profile_meta_str(st->p, "ips_unit", v, vn);
      }
      continue;
    }
    if (s[0] != '|') {
      pl_profile_diag(st->p, c->lineno, "skipped a line in the Perf Summary: %.*s", (int)(n > 60 ? 60 : n), s);
      continue;
    }
    pl_md_cell cells[10];
    int nc = pl_md_split(s, n, cells, 10);
    if (nc < 2)
      return pl_err_expected(st->err, c->lineno, 1, "a Perf Summary row '| NAME | AVG | MAX | MIN |'", l.s, l.n);
    if (nhdr == 0) {
      if (cells[0].n != 0)
        return pl_err_expected(st->err, c->lineno, 1, "the Perf Summary header '|  | avg | max | min |'", l.s, l.n);
      nhdr = nc;
      for (int k = 1; k < nc && k < 8; k++) pl_md_snake(cells[k].s, cells[k].n, hdr[k], sizeof hdr[k]);
      if (t) {
        cm = pl_table_add_doc_col(t, "metric", PL_STR,
                                  "what is measured: reader_cost, batch_cost (times), ips (throughput)");
        for (int k = 1; k < nc && k < 8; k++)
          cv[k] = pl_table_add_doc_col(t, hdr[k], PL_NUM, "value over the steps (avg/max/min as titled), in `unit`");
        cu = pl_table_add_doc_col(t, "unit", PL_STR, "unit of the values: ns for *_cost rows, the IPS unit for ips");
        cr = pl_table_add_doc_col(t, "raw_unit", PL_STR, "the unit as printed (Time Unit / IPS Unit)");
        cl = pl_table_add_doc_col(t, "line", PL_INT, "input line");
      }
      continue;
    }
    if (nc != nhdr) {
      pl_err_set(st->err, c->lineno, 1, "expected a Perf Summary row of %d cells, found %d", nhdr, nc);
      return -1;
    }
    int is_time = pl_find(cells[0].s, cells[0].n, "cost") != NULL;
    double vals[8];
    for (int k = 1; k < nc && k < 8; k++) {
      int rc = cell_num(cells[k].s, cells[k].n, &vals[k]);
      if (rc < 0) return pl_err_expected(st->err, c->lineno, cells[k].col, "a number", cells[k].s, cells[k].n);
      if (rc == 1) vals[k] = NAN;
    }
    rows++;
    if (!t) continue;
    pl_row_put_str(t, cm, cells[0].s, cells[0].n);
    for (int k = 1; k < nc && k < 8; k++)
      if (!isnan(vals[k])) pl_row_put_num(t, cv[k], is_time ? pl_unit_scale(vals[k], fac) : vals[k]);
    pl_row_put_str(t, cu, is_time ? "ns" : iunit, strlen(is_time ? "ns" : iunit));
    pl_row_put_str(t, cr, is_time ? tunit : iunit, strlen(is_time ? tunit : iunit));
    pl_row_put_int(t, cl, (int64_t)c->lineno);
    pl_row_end(t);
  }
  if (nhdr == 0) {
    int more = pl_lines_peek(c, &l);
    return pl_err_expected(st->err, c->lineno + 1, 1, "the Perf Summary table '|  | avg | max | min |'",
                           more ? l.s : NULL, more ? l.n : 0);
  }
  return 0;
}

/* ---- column summaries --------------------------------------------------------- */

typedef struct sect {
  int kind;
  const char *title;
  size_t titlen;
  pl_table *t; /* NULL when not wanted (rows are still checked) */
  int ncols;
  colrole cr[PS_MAXCOLS];
  char hdrtext[PS_MAXCOLS][64];
  int c_depth, c_parent, c_trunc, c_thread, c_side, c_line, c_short, c_kind, c_id;
  int side; /* overview: 0 host (CPU), 1 device (GPU) */
  const char *thread;
  size_t threadn;
  int64_t stack[64];
} sect;

static const char *comp_names_std[5] = { "total_ns", "mean_ns", "max_ns", "min_ns", "share_pct" };
/* NULL: the schema's description (total, mean and share restate it) */
static const char *comp_docs_std[5] = { NULL, NULL, "longest call, ns", "shortest call, ns", NULL };
static const char *comp_suffix[5] = { "total_ns", "avg_ns", "max_ns", "min_ns", "ratio_pct" };

static int setup_columns(ps *st, sect *sc, field *f, int nf, size_t lineno) {
  sc->ncols = nf;
  pl_table *t = sc->t;
  for (int k = 0; k < nf; k++) {
    const char *h = f[k].s;
    size_t hn = f[k].n;
    colrole *r = &sc->cr[k];
    for (int j = 0; j < 6; j++) r->col[j] = -1;
    r->raw = -1;
    snprintf(sc->hdrtext[k], sizeof sc->hdrtext[k], "%.*s", (int)hn, h);
    if (k == 0) {
      r->role = R_NAME;
      if (!t) continue;
      const char *nm = sc->kind == S_OVERVIEW ? "event_type" : "name";
      const char *doc = sc->kind == S_OVERVIEW
                            ? "event type (ProfileStep, Operator, Kernel, ...), without its indentation"
                        : sc->kind == S_DEVICE
                            ? "device as printed: CPU(Process), CPU(System), GPU0, ..."
                            : "name as printed, without its indentation (cut with '...' where the tool shortened it)";
      r->col[0] = pl_table_add_doc_col(t, nm, PL_STR, doc);
      if (sc->kind == S_KERNEL) /* the standard order: name, short_name, calls, ... */
        sc->c_short = pl_table_add_doc_col(t, "short_name", PL_STR, NULL); /* the schema's */
      continue;
    }
    if (hn == 5 && memcmp(h, "Calls", 5) == 0) {
      r->role = R_CALLS;
      if (t) r->col[0] = pl_table_add_doc_col(t, "calls", PL_INT, "number of calls");
      continue;
    }
    if ((pl_starts(h, hn, "CPU Total") || pl_starts(h, hn, "GPU Total")) && pl_find(h, hn, "/")) {
      r->role = R_COMP;
      if (!t) continue;
      int gpu = h[0] == 'G';
      char nm[64], doc[160];
      for (int j = 0; j < 5; j++) {
        if (sc->kind == S_KERNEL && gpu) {
          r->col[j] = pl_table_add_doc_col(t, comp_names_std[j], PL_NUM, comp_docs_std[j]);
        } else {
          snprintf(nm, sizeof nm, "%s_%s", gpu ? "gpu" : "cpu", comp_suffix[j]);
          snprintf(doc, sizeof doc, "%s %s", gpu ? "GPU (device)" : "CPU (host)",
                   j == 0   ? "total time over all calls, ns"
                   : j == 1 ? "mean time per call, ns"
                   : j == 2 ? "longest call, ns"
                   : j == 3 ? "shortest call, ns"
                            : "ratio as printed (share of the parent or of the total), percent");
          r->col[j] = pl_table_add_doc_col(t, nm, PL_NUM, doc);
        }
      }
      snprintf(nm, sizeof nm, "%s_raw", gpu ? "gpu" : "cpu");
      r->raw = pl_table_add_doc_col(
          t, nm, PL_STR,
          "the composite 'Total / Avg / Max / Min / Ratio(%)' cell as printed, in the time unit of meta time_unit");
      continue;
    }
    if ((hn == 8 && (memcmp(h, "CPU Time", 8) == 0 || memcmp(h, "GPU Time", 8) == 0)) ||
        (hn == 10 && memcmp(h, "Total Time", 10) == 0)) {
      r->role = R_TIME;
      if (t)
        r->col[0] = pl_table_add_doc_col(t, "time_ns", PL_NUM, "time of the events (merged where they overlap), ns");
      continue;
    }
    if (pl_starts(h, hn, "Ratio")) {
      r->role = R_RATIO;
      if (t) r->col[0] = pl_table_add_doc_col(t, "ratio_pct", PL_NUM, "share of the total time, percent");
      continue;
    }
    if (pl_starts(h, hn, "Utilization")) {
      r->role = R_UTIL;
      if (t)
        r->col[0] = pl_table_add_doc_col(t, "utilization_pct", PL_NUM,
                                         "utilisation, percent (CPU(Process) can exceed 100 with several cores; GPU "
                                         "above 100 means the step timer covers less than the device time)");
      continue;
    }
    if (hn == 5 && memcmp(h, "FLOPs", 5) == 0) {
      r->role = R_NUM;
      if (t) r->col[0] = pl_table_add_doc_col(t, "flops", PL_NUM, "floating-point operations counted by the profiler");
      continue;
    }
    r->role = R_TEXT;
    if (t) {
      char nm[64];
      if (pl_md_snake(h, hn, nm, sizeof nm) == 0) snprintf(nm, sizeof nm, "col%d", k + 1);
      r->col[0] = pl_table_add_doc_col(t, nm, PL_STR, "cell text as printed (column not known to the parser)");
    }
  }
  (void)st;
  (void)lineno;
  if (!t) return 0;
  sc->c_depth = sc->c_parent = sc->c_trunc = sc->c_thread = sc->c_side = sc->c_kind = sc->c_id = -1;
  if (sc->kind == S_DEVICE) {
    sc->c_kind = pl_table_add_doc_col(t, "kind", PL_STR, "CPU or GPU (the letters of the name)");
    sc->c_id = pl_table_add_doc_col(t, "id", PL_INT, "device index (the digits after GPU), missing for CPU rows");
  }
  if (sc->kind == S_OVERVIEW)
    sc->c_side = pl_table_add_doc_col(t, "side", PL_STR, "CPU (host half of the table) or GPU (device half)");
  if (sc->kind != S_DEVICE && sc->kind != S_KERNEL && sc->kind != S_MEMMANIP) {
    sc->c_depth = pl_table_add_doc_col(t, "depth", PL_INT,
                                       "tree depth from the indentation (two spaces per level), 0 = top level");
    sc->c_parent = pl_table_add_doc_col(
        t, "parent", PL_INT,
        "row index (0-based, in this table) of the enclosing row one level up; missing at depth 0");
  }
  if (sc->kind != S_DEVICE && sc->kind != S_OVERVIEW)
    sc->c_trunc = pl_table_add_doc_col(t, "truncated", PL_BOOL, NULL); /* the schema's */
  if (sc->kind == S_OPERATOR || sc->kind == S_USERDEF)
    sc->c_thread = pl_table_add_doc_col(t, "thread", PL_STR,
                                        "thread banner the row is under ('All threads merged' or a thread id)");
  sc->c_line = pl_table_add_doc_col(t, "line", PL_INT, "input line of the row");
  return 0;
}

static int parse_row(ps *st, sect *sc, const pl_line *l, size_t lineno) {
  field f[PS_MAXCOLS + 8];
  int nf = split_fields(l->s, l->n, f, PS_MAXCOLS + 8);
  if (nf < sc->ncols) {
    size_t at = nf > 0 ? f[nf - 1].col + f[nf - 1].n : 1;
    pl_err_set(st->err, lineno, at, "expected a row of %d columns (%s, ... %s) in the %.*s table, found %d column%s",
               sc->ncols, sc->hdrtext[0], sc->hdrtext[sc->ncols - 1], (int)sc->titlen, sc->title, nf,
               nf == 1 ? "" : "s");
    return -1;
  }
  /* a name holding two spaces: merge the extra leading fields into it */
  if (nf > sc->ncols) {
    int extra = nf - sc->ncols;
    f[0].n = (size_t)(f[extra].s + f[extra].n - f[0].s);
    for (int k = 1; k < sc->ncols; k++) f[k] = f[k + extra];
    nf = sc->ncols;
  }
  size_t indent = f[0].col - 1;
  int depth = (int)(indent / 2);
  pl_table *t = sc->t;
  /* check and store every cell */
  for (int k = 0; k < nf; k++) {
    colrole *r = &sc->cr[k];
    const char *s = f[k].s;
    size_t n = f[k].n;
    double v;
    switch (r->role) {
      case R_NAME:
        if (t) {
          pl_row_put_str(t, r->col[0], s, n);
          if (sc->c_trunc >= 0) pl_row_put_bool(t, sc->c_trunc, pl_name_truncated(s, n));
          if (sc->c_short >= 0) {
            size_t sn = pl_short_name(s, n, st->shortbuf, sizeof st->shortbuf);
            pl_row_put_str(t, sc->c_short, st->shortbuf, sn);
          }
          if (sc->c_kind >= 0) {
            size_t a = 0;
            while (a < n && ((s[a] >= 'A' && s[a] <= 'Z') || (s[a] >= 'a' && s[a] <= 'z'))) a++;
            pl_row_put_str(t, sc->c_kind, s, a);
            int64_t id;
            if (a < n && pl_parse_int64(s + a, n - a, &id) == 0) pl_row_put_int(t, sc->c_id, id);
          }
        }
        break;
      case R_CALLS: {
        int rc = cell_num(s, n, &v);
        if (rc < 0 || (rc == 0 && (v != floor(v) || v < 0 || v >= 9.2e18))) {
          if (t) pl_row_discard(t);
          return pl_err_expected(st->err, lineno, f[k].col, "the number of calls (an integer or '-')", s, n);
        }
        if (rc == 0 && t) pl_row_put_int(t, r->col[0], pl_int_of(v));
        break;
      }
      case R_COMP: {
        /* Total / Avg / Max / Min / Ratio(%) */
        size_t i = 0;
        int part = 0;
        while (part < 5) {
          size_t st0 = i;
          while (i < n && s[i] != '/') i++;
          double pv;
          int rc = cell_num(s + st0, i - st0, &pv);
          if (rc < 0) {
            if (t) pl_row_discard(t);
            const char *ps0 = s + st0;
            size_t pn = i - st0;
            size_t lead = 0;
            while (lead < pn && ps0[lead] == ' ') lead++;
            return pl_err_expected(st->err, lineno, f[k].col + st0 + lead,
                                   "a number or '-' in the 'Total / Avg / Max / Min / Ratio(%)' cell", ps0 + lead,
                                   pn - lead);
          }
          if (rc == 0 && t) pl_row_put_num(t, r->col[part], part < 4 ? pl_unit_scale(pv, st->tfac) : pv);
          part++;
          if (i >= n) break;
          i++; /* past '/' */
        }
        if (part != 5 || i < n) {
          if (t) pl_row_discard(t);
          return pl_err_expected(st->err, lineno, f[k].col, "five values 'Total / Avg / Max / Min / Ratio(%)'", s, n);
        }
        if (t && r->raw >= 0) pl_row_put_str(t, r->raw, s, n);
        break;
      }
      case R_TIME:
      case R_RATIO:
      case R_UTIL:
      case R_NUM: {
        int rc = cell_num(s, n, &v);
        if (rc < 0) {
          if (t) pl_row_discard(t);
          char what[128];
          snprintf(what, sizeof what, "a number or '-' in the column '%s'", sc->hdrtext[k]);
          return pl_err_expected(st->err, lineno, f[k].col, what, s, n);
        }
        if (rc == 0 && t) pl_row_put_num(t, r->col[0], r->role == R_TIME ? pl_unit_scale(v, st->tfac) : v);
        break;
      }
      default:
        if (t && n) pl_row_put_str(t, r->col[0], s, n);
        break;
    }
  }
  if (!t) return 0;
  if (sc->c_depth >= 0) {
    pl_row_put_int(t, sc->c_depth, depth);
    if (depth > 0 && depth < 64 && sc->stack[depth - 1] >= 0) pl_row_put_int(t, sc->c_parent, sc->stack[depth - 1]);
    if (depth < 64) {
      sc->stack[depth] = (int64_t)t->nrows;
      for (int d = depth + 1; d < 64; d++) sc->stack[d] = -1;
    }
  }
  if (sc->c_side >= 0) pl_row_put_str(t, sc->c_side, sc->side ? "GPU" : "CPU", 3);
  if (sc->c_thread >= 0 && sc->thread) pl_row_put_str(t, sc->c_thread, sc->thread, sc->threadn);
  pl_row_put_int(t, sc->c_line, (int64_t)lineno);
  pl_row_end(t);
  return 0;
}

static int known_header(int kind, const field *f, int nf) {
  if (nf < 2) return 0;
  const char *s = f[0].s;
  size_t n = f[0].n;
  switch (kind) {
    case S_DEVICE: return n == 6 && memcmp(s, "Device", 6) == 0;
    case S_OVERVIEW: return n == 10 && memcmp(s, "Event Type", 10) == 0;
    case S_OTHER: return 1;
    default: return n == 4 && memcmp(s, "Name", 4) == 0;
  }
}

static const char *expected_header(int kind) {
  switch (kind) {
    case S_DEVICE: return "the column header line 'Device  Utilization (%)'";
    case S_OVERVIEW: return "the column header line 'Event Type  Calls  CPU Time  Ratio (%)'";
    case S_KERNEL: return "the column header line 'Name  Calls  GPU Total / Avg / Max / Min / Ratio(%)'";
    case S_DIST: return "the column header line 'Name  Total Time  Ratio (%)'";
    default: return "the column header line 'Name  Calls  CPU Total / Avg / Max / Min / Ratio(%)  GPU Total / ...'";
  }
}

/* States of a column table, and what one line's handler tells parse_columns to do. */
enum { PC_PRE, PC_HEADER, PC_HSEP, PC_BODY };
enum { PC_FAIL = -1, PC_NEXT = 0, PC_CLOSED = 1, PC_DONE = 2, PC_ROW = 3 };

/* The input ended inside the table: fine only after rows of the tables that end with blank lines. */
static int pc_eof(ps *st, pl_lines *c, const sect *sc, int state, int rows) {
  if (state == PC_BODY && (sc->kind == S_USERDEF || sc->kind == S_OTHER) && rows > 0) return 0;
  char what[200];
  snprintf(what, sizeof what,
           state == PC_BODY     ? "a row or the closing '----' line of the %.*s table"
           : state == PC_PRE    ? "the '----' line that opens the %.*s table"
           : state == PC_HEADER ? "the column header line of the %.*s table"
                                : "the '----' line under the column header of the %.*s table",
           (int)sc->titlen, sc->title);
  return pl_err_expected(st->err, c->lineno + 1, 1, what, NULL, 0);
}

/* A line before the table's opening '----': blank, "Time unit:", "Key: value" (S_OTHER) or the '----'. */
static int pc_pre(ps *st, pl_lines *c, const sect *sc, const pl_line *l, const char *s, size_t n, const char *tname,
                  int *state) {
  if (n == 0) return PC_NEXT;
  if (pl_starts(s, n, "Time unit:") || pl_starts(s, n, "Time Unit:")) {
    const char *u = s + 10;
    size_t un = n - 10;
    pl_trim(&u, &un);
    if (time_factor(u, un, &st->tfac) != 0)
      return pl_err_expected(st->err, c->lineno, (size_t)(u - l->s) + 1, "a time unit (s, ms, us, ns)", u, un);
    pl_profile_meta_str(st->p, "time_unit", u, un);
    return PC_NEXT;
  }
  if (is_sep(s, n)) {
    *state = PC_HEADER;
    return PC_NEXT;
  }
  if (sc->kind == S_OTHER && memchr(s, ':', n)) { /* "Peak Allocated Memory: ..." style lines */
    const char *colon = memchr(s, ':', n);
    char key[160], sk[96], tk[64];
    pl_md_snake(s, (size_t)(colon - s), sk, sizeof sk);
    snprintf(tk, sizeof tk, "%.60s", tname);
    snprintf(key, sizeof key, "%.60s.%.90s", tk, sk);
    const char *v = colon + 1;
    size_t vn = (size_t)(s + n - v);
    pl_trim(&v, &vn);
    pl_profile_meta_str(st->p, key, v, vn);
    return PC_NEXT;
  }
  char what[200];
  snprintf(what, sizeof what, "the '----' line that opens the %.*s table", (int)sc->titlen, sc->title);
  return pl_err_expected(st->err, c->lineno, 1, what, l->s, l->n);
}

/* A '----' line inside the table: the Overview's device half (a second header row between separators) or the end. */
static int pc_body_sep(ps *st, pl_lines *c, sect *sc) {
  pl_line nx;
  const char *ts;
  size_t tn;
  if (pl_lines_peek(c, &nx) && !pl_is_blank(nx.s, nx.n) && !is_sep(nx.s, nx.n) && !banner(nx.s, nx.n, &ts, &tn) &&
      (nx.s[0] == ' ') && pl_find(nx.s, nx.n, "Time") && pl_find(nx.s, nx.n, "Ratio")) {
    pl_lines_next(c, &nx);
    sc->side = pl_find(nx.s, nx.n, "GPU") != NULL;
    for (int d = 0; d < 64; d++) sc->stack[d] = -1; /* the device half is its own tree */
    int got = pl_lines_next(c, &nx);
    if (!got || !is_sep(nx.s, nx.n)) {
      char what[200];
      snprintf(what, sizeof what, "the '----' line under the device header of the %.*s table", (int)sc->titlen,
               sc->title);
      return pl_err_expected(st->err, got ? c->lineno : c->lineno + 1, 1, what, got ? nx.s : NULL, got ? nx.n : 0);
    }
    return PC_NEXT;
  }
  return PC_CLOSED;
}

/* One line of the table's body: a row, a separator, a "Thread:" banner, a fence, a blank or a comment. */
static int pc_body(ps *st, pl_lines *c, sect *sc, const pl_line *l, const char *s, size_t n, int rows) {
  const char *ts;
  size_t tn;
  if (is_sep(s, n)) return pc_body_sep(st, c, sc);
  if (banner(l->s, l->n, &ts, &tn)) {
    if (pl_starts(ts, tn, "Thread:")) {
      const char *th = ts + 7;
      size_t thn = tn - 7;
      pl_trim(&th, &thn);
      sc->thread = th;
      sc->threadn = thn;
      for (int d = 0; d < 64; d++) sc->stack[d] = -1;
      return PC_NEXT;
    }
    char what[200];
    snprintf(what, sizeof what, "a row or the closing '----' line of the %.*s table", (int)sc->titlen, sc->title);
    return pl_err_expected(st->err, c->lineno, 1, what, l->s, l->n);
  }
  if (n >= 3 && (memcmp(s, "```", 3) == 0 || memcmp(s, "~~~", 3) == 0)) {
    /* a summary pasted into Markdown, its fence closing the table */
    pl_profile_diag(st->p, c->lineno, "the %.*s table ends at a Markdown code fence, without its closing '----' line",
                    (int)sc->titlen, sc->title);
    return PC_DONE;
  }
  if (n == 0) {
    if ((sc->kind == S_USERDEF || sc->kind == S_OTHER) && rows > 0) return PC_DONE; /* these end with blank lines */
    pl_err_set(st->err, c->lineno, 1, "expected a row or the closing '----' line of the %.*s table, found a blank line",
               (int)sc->titlen, sc->title);
    return PC_FAIL;
  }
  if (s[0] == '#') {
    pl_profile_diag(st->p, c->lineno, "skipped a comment line inside the %.*s table (rows may be missing here)",
                    (int)sc->titlen, sc->title);
    return PC_NEXT;
  }
  if (parse_row(st, sc, l, c->lineno) != 0) {
    /* --lenient: drop the row, list it in the diagnostics, go on */
    if (sc->t) pl_row_discard(sc->t);
    if (pl_lenient_skip(st->o, st->p, st->err)) return PC_NEXT;
    return PC_FAIL;
  }
  return PC_ROW;
}

/* After the closing '----': a Note: trailer, possibly after blank lines. */
static void pc_trailer(ps *st, pl_lines *c, const char *title, size_t titlen) {
  pl_lines look = *c;
  pl_line l;
  while (pl_lines_next(&look, &l)) {
    if (pl_is_blank(l.s, l.n)) continue;
    const char *s = l.s;
    size_t n = l.n;
    pl_trim(&s, &n);
    if (n == 5 && memcmp(s, "Note:", 5) == 0) {
      *c = look;
      read_note(st, c, title, titlen);
    }
    break;
  }
}

static int parse_columns(ps *st, pl_lines *c, int kind, const char *tname, const char *title, size_t titlen) {
  sect sc;
  memset(&sc, 0, sizeof sc);
  sc.c_short = -1;
  sc.kind = kind;
  sc.title = title;
  sc.titlen = titlen;
  for (int d = 0; d < 64; d++) sc.stack[d] = -1;
  sc.t = pl_want_table(st->o, tname) ? get_table(st, tname) : NULL;
  if (pl_want_table(st->o, tname) && !sc.t) return pl_err_set(st->err, c->lineno, 1, "too many summary tables");
  st->tfac = 1e6; /* Paddle's default time unit is ms */
  int state = PC_PRE;
  pl_line l;
  char what[200];
  int rows = 0;
  while (1) {
    if (!pl_lines_next(c, &l)) return pc_eof(st, c, &sc, state, rows);
    if (st->o && st->o->interrupt && *st->o->interrupt) return pl_err_set(st->err, c->lineno, 1, "interrupted");
    const char *s = l.s;
    size_t n = l.n;
    pl_trim(&s, &n);
    int rc;
    switch (state) {
      case PC_PRE:
        if (pc_pre(st, c, &sc, &l, s, n, tname, &state) != 0) return -1;
        continue;
      case PC_HEADER: {
        field f[PS_MAXCOLS];
        int nf = n ? split_fields(l.s, l.n, f, PS_MAXCOLS) : 0;
        if (n == 0 || is_sep(s, n) || !known_header(kind, f, nf))
          return pl_err_expected(st->err, c->lineno, 1, expected_header(kind), l.s, l.n);
        if (setup_columns(st, &sc, f, nf, c->lineno) != 0) return -1;
        state = PC_HSEP;
        continue;
      }
      case PC_HSEP:
        if (!is_sep(s, n)) {
          snprintf(what, sizeof what, "the '----' line under the column header of the %.*s table", (int)titlen, title);
          return pl_err_expected(st->err, c->lineno, 1, what, l.s, l.n);
        }
        state = PC_BODY;
        continue;
      default: /* PC_BODY */
        rc = pc_body(st, c, &sc, &l, s, n, rows);
        if (rc == PC_FAIL) return -1;
        if (rc == PC_DONE) return 0;
        if (rc == PC_CLOSED) {
          pc_trailer(st, c, title, titlen);
          return 0;
        }
        if (rc == PC_ROW) rows++;
        continue;
    }
  }
}

/* ---- driver --------------------------------------------------------------- */

static int pd_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  ps st;
  memset(&st, 0, sizeof st);
  st.p = p;
  st.o = o;
  st.err = err;
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, in->data, in->len);
  size_t skip_from = 0, skipped = 0;
  const char *ts;
  size_t tn;
  while (pl_lines_next(&c, &l)) {
    if (o && o->interrupt && *o->interrupt) {
      free_all(&st);
      return pl_err_set(err, c.lineno, 1, "interrupted");
    }
    if (pl_is_blank(l.s, l.n)) continue;
    if (banner(l.s, l.n, &ts, &tn) && !pl_starts(ts, tn, "Thread:")) {
      if (skipped) {
        pl_profile_diag(p, skip_from, "skipped %zu line(s) of other output", skipped);
        skipped = 0;
      }
      int kind = S_OTHER;
      const char *tname = NULL;
      for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        if (strlen(sections[i].title) == tn && memcmp(sections[i].title, ts, tn) == 0) {
          kind = sections[i].kind;
          tname = sections[i].table;
        }
      char gname[96];
      if (kind == S_OTHER) {
        if (pl_md_snake(ts, tn, gname, sizeof gname) == 0) snprintf(gname, sizeof gname, "summary");
        if (strcmp(gname, "memory_summary") == 0)
          snprintf(gname, sizeof gname, "memory_alloc"); /* keep memory_summary for Memory Manipulation */
        tname = gname;
      }
      int rc = kind == S_PERF ? parse_perf(&st, &c, ts, tn) : parse_columns(&st, &c, kind, tname, ts, tn);
      if (rc != 0) {
        free_all(&st);
        return -1;
      }
      st.n_sec++;
      continue;
    }
    if (!skipped++) skip_from = c.lineno;
  }
  if (skipped) pl_profile_diag(p, skip_from, "skipped %zu line(s) of other output", skipped);
  if (st.n_sec == 0) {
    free_all(&st);
    return pl_err_expected(err, 1, 1, "a Paddle profiler summary title such as '-----Overview Summary-----'", in->data,
                           in->len);
  }
  for (int i = 0; i < st.ntabs; i++) pl_profile_add_table(p, st.tabs[i]);
  st.ntabs = 0;
  if (st.notes) pl_profile_add_table(p, st.notes);
  st.notes = NULL;
  pl_profile_meta_str(p, "tool", "paddle.profiler", 15);
  pl_profile_meta_num(p, "summaries", st.n_sec);
  return 0;
}

static int pd_detect(const char *data, size_t len) {
  static const char *titles[] = { "-Overview Summary-",
                                  "-Operator Summary-",
                                  "-Kernel Summary-",
                                  "-Device Summary-",
                                  "=Perf Summary=",
                                  "-Model Summary-",
                                  "-Memory Manipulation Summary-",
                                  "-UserDefined Summary-",
                                  "-Distribution Summary-" };
  int hits = 0;
  for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
    if (pl_find(data, len, titles[i])) hits++;
  int comp = pl_find(data, len, "Total / Avg / Max / Min / Ratio(%)") != NULL;
  if (hits >= 2 || (hits >= 1 && comp)) return 95;
  if (hits == 1) return 70;
  if (comp) return 60;
  return 0;
}

const pl_format pl_fmt_paddle_summary = {
  "paddle-summary",
  "PaddlePaddle profiler summary text: every summary table, tree depth from indentation",
  "perf_summary devices overview model_summary distribution operators kernel_summary memory_summary userdefined notes",
  pd_detect,
  pd_parse,
};

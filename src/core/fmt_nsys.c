/*
** fmt_nsys.c -- format "nsys-stats": the console output of `nsys stats` and
** `nsys profile --stats=true`, as column text or as CSV (`--format csv`).
**
** Three report-name generations are read and normalised onto one set of
** table names:
**   2019.x  titles "CUDA API Statistics (nanoseconds)", "CUDA Kernel
**           Statistics", "CUDA Memory Operation Statistics (nanoseconds|KiB)",
**           "Operating System Runtime API Statistics", "NVTX Push-Pop Range
**           Statistics"; headers "Time(%) Total Time Calls Average ...".
**   2021    headings "CUDA API Statistics:", "CUDA Memory Operation Statistics
**           (by size in KiB):", ..., "Operating System Runtime API
**           Statistics:" (one per process); Average/Minimum/Maximum without
**           a unit (ns; KiB in the size report).
**   2021-22 "Executing 'cudaapisum' stats report", gpukernsum with GridXYZ /
**           BlockXYZ columns (cells "32768    1    1"), gpumemtimesum,
**           gpumemsizesum, osrtsum, nvtxsum.
**   2023+   cuda_api_sum, cuda_gpu_kern_sum, cuda_gpu_mem_time_sum,
**           cuda_gpu_mem_size_sum, osrt_sum, nvtx_sum; "Time (%)", "Med (ns)",
**           "StdDev (ns)", thousands separators; "** Title (name):" lines.
** Text tables are sliced by the extents of the dashes line under the header
** (the last column runs to the end of the line).  A table ends at a blank
** line.  Other lines (progress, program output, "Generated:") are ignored;
** "SKIPPED: ..." lines become diagnostics.
**
** Tables: cuda_api_sum, cuda_gpu_kern_sum, cuda_gpu_mem_time_sum,
** cuda_gpu_mem_size_sum, nvtx_sum, osrt_sum (others keep their report
** name), and kernel_summary (the kernel report plus short_name).  A second
** report of a name (another process or run) is NAME_2, NAME_3, ... in file
** order, whichever tables are asked for.
*/
#include "format.h"
#include "csvread.h"
#include "kernsum.h"
#include "names.h"
#include "scan.h"
#include "units.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXCOLS 48

enum { C_NUM, C_INT, C_STR, C_XYZ };

typedef struct colspec {
  char label[96]; /* header text as printed */
  char name[64];  /* column name */
  int kind;
  double factor;       /* value * factor -> base unit */
  int col, col2, col3; /* table column(s) */
  size_t a, b;         /* text extent (dashes) */
} colspec;

typedef struct report {
  pl_table *t;
  colspec cs[MAXCOLS];
  size_t n;
  int has_size_unit;
  const char *size_unit;
  char unitbuf[16];
  int c_unit, c_line;
  /* the text-row fast path (fast_text_row) */
  uint32_t unit_id;      /* size_unit's pool id, once a row has interned it */
  uint32_t scache[4096]; /* pool ids of recent string cells, by a hash of the text */
  pl_cell cells[MAXCOLS * 3 + 2];
} report;

typedef struct nsys_state {
  pl_profile *p;
  const pl_parse_opts *o;
  char pending[64];    /* report name announced before the table */
  char title_unit[16]; /* 2019 titles: "nanoseconds", "KiB" */
  int gen2019, gen2022, gen2023;
  int ntables;
  report *cur; /* CSV block being read */
  size_t header_line;
  /* every table name given so far, whether or not the table is kept
  ** (--table NAME), so that a name never depends on what was asked for */
  char (*used)[128];
  size_t nused, capused;
  /* nsys analyze / expert rules: the rule of the section being read (from
  ** "** Title (rule):"), its prose as findings (table rule_findings) */
  char rule[64], rule_title[128];
  pl_table *findings;
  int fc_rule, fc_title, fc_text, fc_line;
  pl_buf prose;
  size_t prose_line;
  size_t last_processing; /* line of the last "Processing [...] with [...]" */
  int section_body;       /* that section had a body */
} nsys_state;

/* the prose paragraph collected so far becomes a row of rule_findings */
static void flush_prose(nsys_state *st) {
  if (st->prose.len == 0) return;
  if (!st->findings && pl_want_table(st->o, "rule_findings")) {
    pl_table *t = pl_table_new("rule_findings");
    st->fc_rule = pl_table_add_doc_col(t, "rule", PL_STR, "expert rule (nsys analyze), e.g. cuda_memcpy_sync");
    st->fc_title = pl_table_add_doc_col(t, "title", PL_STR, "the rule's title");
    st->fc_text = pl_table_add_doc_col(
        t, "text", PL_STR, "a paragraph the rule printed (a finding, a suggestion, or that nothing was found)");
    st->fc_line = pl_table_add_doc_col(t, "line", PL_INT, "line of the paragraph in the input");
    st->findings = t;
  }
  if (st->findings) {
    pl_table *t = st->findings;
    pl_row_put_str(t, st->fc_rule, st->rule, strlen(st->rule));
    pl_row_put_str(t, st->fc_title, st->rule_title, strlen(st->rule_title));
    pl_row_put_str(t, st->fc_text, st->prose.data, st->prose.len);
    pl_row_put_int(t, st->fc_line, (int64_t)st->prose_line);
    pl_row_end(t);
  }
  st->prose.len = 0;
}

/* ---- names ------------------------------------------------------------- */

static const struct {
  const char *from, *to;
} aliases[] = {
  { "cudaapisum", "cuda_api_sum" },
  { "gpukernsum", "cuda_gpu_kern_sum" },
  { "gpumemtimesum", "cuda_gpu_mem_time_sum" },
  { "gpumemsizesum", "cuda_gpu_mem_size_sum" },
  { "nvtxsum", "nvtx_sum" },
  { "nvtxppsum", "nvtx_sum" },
  { "nvtx_pushpop_sum", "nvtx_sum" },
  { "osrtsum", "osrt_sum" },
  { "gpusum", "cuda_gpu_sum" },
  { "cudaapitrace", "cuda_api_trace" },
  { "gputrace", "cuda_gpu_trace" },
  { "kernexecsum", "cuda_kern_exec_sum" },
};

static void normalise_report(nsys_state *st, const char *s, size_t n) {
  char buf[64];
  if (n >= sizeof buf) n = sizeof buf - 1;
  memcpy(buf, s, n);
  buf[n] = '\0';
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(buf, aliases[i].from) == 0) {
      snprintf(st->pending, sizeof st->pending, "%s", aliases[i].to);
      st->gen2022 = 1;
      return;
    }
  if (strchr(buf, '_')) st->gen2023 = 1;
  snprintf(st->pending, sizeof st->pending, "%s", buf);
}

/* 2021 headings ("CUDA API Statistics:", one per process for the OS
** runtime): times without a unit are ns, the memory sizes KiB. */
static int title_2021(nsys_state *st, const char *s, size_t n) {
  static const struct {
    const char *title, *name, *unit;
  } tt[] = {
    { "CUDA API Statistics:", "cuda_api_sum", "ns" },
    { "CUDA Kernel Statistics:", "cuda_gpu_kern_sum", "ns" },
    { "CUDA Memory Operation Statistics (by time):", "cuda_gpu_mem_time_sum", "ns" },
    { "CUDA Memory Operation Statistics (by size in KiB):", "cuda_gpu_mem_size_sum", "KiB" },
    { "Operating System Runtime API Statistics:", "osrt_sum", "ns" },
    { "NVTX Push-Pop Range Statistics:", "nvtx_sum", "ns" },
    { "NVTX Range Statistics:", "nvtx_sum", "ns" },
  };
  for (size_t i = 0; i < sizeof tt / sizeof tt[0]; i++) {
    if (n != strlen(tt[i].title) || memcmp(s, tt[i].title, n) != 0) continue;
    snprintf(st->pending, sizeof st->pending, "%s", tt[i].name);
    snprintf(st->title_unit, sizeof st->title_unit, "%s", tt[i].unit);
    st->gen2022 = 1;
    return 1;
  }
  return 0;
}

/* 2019 titles. */
static int title_2019(nsys_state *st, const char *s, size_t n) {
  static const struct {
    const char *title, *name;
  } tt[] = {
    { "CUDA API Statistics", "cuda_api_sum" },        { "CUDA Kernel Statistics", "cuda_gpu_kern_sum" },
    { "CUDA Memory Operation Statistics", NULL },     { "Operating System Runtime API Statistics", "osrt_sum" },
    { "NVTX Push-Pop Range Statistics", "nvtx_sum" }, { "NVTX Range Statistics", "nvtx_sum" },
  };
  for (size_t i = 0; i < sizeof tt / sizeof tt[0]; i++) {
    if (!pl_starts(s, n, tt[i].title)) continue;
    size_t k = strlen(tt[i].title);
    const char *u = s + k;
    size_t un = n - k;
    pl_trim(&u, &un);
    if (un < 2 || u[0] != '(' || u[un - 1] != ')') return 0; /* "Generating ...Statistics..." lines */
    snprintf(st->title_unit, sizeof st->title_unit, "%.*s", (int)(un - 2 < 15 ? un - 2 : 15), u + 1);
    int ns = strcmp(st->title_unit, "nanoseconds") == 0;
    if (ns) snprintf(st->title_unit, sizeof st->title_unit, "ns");
    if (tt[i].name) snprintf(st->pending, sizeof st->pending, "%s", tt[i].name);
    else snprintf(st->pending, sizeof st->pending, "%s", ns ? "cuda_gpu_mem_time_sum" : "cuda_gpu_mem_size_sum");
    st->gen2019 = 1;
    return 1;
  }
  return 0;
}

static void snake(const char *s, size_t n, char *out, size_t outsz) {
  size_t k = 0;
  int us = 0;
  for (size_t i = 0; i < n && k + 1 < outsz; i++) {
    unsigned char c = (unsigned char)s[i];
    if (isalnum(c)) {
      out[k++] = (char)tolower(c);
      us = 0;
    } else if (!us && k > 0) {
      out[k++] = '_';
      us = 1;
    }
  }
  while (k > 0 && out[k - 1] == '_') k--;
  out[k] = '\0';
  if (k == 0) snprintf(out, outsz, "col");
}

/* Maps a header label onto a column spec. */
static void map_header(const nsys_state *st, const char *s, size_t n, colspec *c) {
  pl_trim(&s, &n);
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
    s++;
    n -= 2;
  }
  snprintf(c->label, sizeof c->label, "%.*s", (int)(n < 95 ? n : 95), s);
  c->kind = C_NUM;
  c->factor = 1;
  /* split "Base (unit)" */
  const char *base = s;
  size_t bn = n;
  const char *unit = NULL;
  size_t un = 0;
  const char *lp = memchr(s, '(', n);
  if (lp && s[n - 1] == ')') {
    unit = lp + 1;
    un = (size_t)(s + n - 1 - unit);
    bn = (size_t)(lp - s);
    pl_trim(&base, &bn);
  }
  char b[64];
  snprintf(b, sizeof b, "%.*s", (int)(bn < 63 ? bn : 63), base);
  const char *what = NULL;
  if (strcmp(b, "Time") == 0 && unit && un == 1 && unit[0] == '%') {
    snprintf(c->name, sizeof c->name, "share_pct");
    return;
  }
  if (strcmp(b, "Total Time") == 0 || strcmp(b, "Total") == 0) what = "total";
  else if (strcmp(b, "Avg") == 0 || strcmp(b, "Average") == 0) what = "mean";
  else if (strcmp(b, "Med") == 0 || strcmp(b, "Median") == 0) what = "med";
  else if (strcmp(b, "Min") == 0 || strcmp(b, "Minimum") == 0) what = "min";
  else if (strcmp(b, "Max") == 0 || strcmp(b, "Maximum") == 0) what = "max";
  else if (strcmp(b, "StdDev") == 0 || strcmp(b, "Std Dev") == 0) what = "stddev";
  if (what) {
    char ub[24];
    if (unit) snprintf(ub, sizeof ub, "%.*s", (int)(un < 23 ? un : 23), unit);
    else if (st->title_unit[0]) snprintf(ub, sizeof ub, "%s", st->title_unit);
    else snprintf(ub, sizeof ub, "%s", strcmp(b, "Total Time") == 0 ? "ns" : "");
    pl_unit u;
    if (ub[0] && pl_unit_lookup(ub, strlen(ub), &u) == 0 &&
        (strcmp(u.base, "ns") == 0 || strcmp(u.base, "byte") == 0)) {
      c->factor = u.factor;
      snprintf(c->name, sizeof c->name, "%s_%s", what, strcmp(u.base, "ns") == 0 ? "ns" : "bytes");
      return;
    }
    snprintf(c->name, sizeof c->name, "%s", what);
    return;
  }
  if (strcmp(b, "Num Calls") == 0 || strcmp(b, "Calls") == 0) {
    snprintf(c->name, sizeof c->name, "calls");
    c->kind = C_INT;
    return;
  }
  if (strcmp(b, "Instances") == 0) {
    snprintf(c->name, sizeof c->name, "instances");
    c->kind = C_INT;
    return;
  }
  if (strcmp(b, "Count") == 0 || strcmp(b, "Operations") == 0) {
    snprintf(c->name, sizeof c->name, "count");
    c->kind = C_INT;
    return;
  }
  if (strcmp(b, "Name") == 0 || strcmp(b, "Operation") == 0 || strcmp(b, "Range") == 0) {
    snprintf(c->name, sizeof c->name, "name");
    c->kind = C_STR;
    return;
  }
  if (strcmp(b, "GridXYZ") == 0) {
    snprintf(c->name, sizeof c->name, "grid");
    c->kind = C_XYZ;
    return;
  }
  if (strcmp(b, "BlockXYZ") == 0) {
    snprintf(c->name, sizeof c->name, "block");
    c->kind = C_XYZ;
    return;
  }
  snake(s, n, c->name, sizeof c->name);
  /* a measure with a unit (an expert rule's "Duration (ns)", "Bytes (MB)") is a number */
  if (unit && ((un == 2 && (memcmp(unit, "ns", 2) == 0 || memcmp(unit, "MB", 2) == 0)) || (un == 1 && unit[0] == '%')))
    return;
  c->kind = C_STR;
}

static int has_col(const report *r, const char *name) {
  for (size_t i = 0; i < r->n; i++)
    if (strcmp(r->cs[i].name, name) == 0) return 1;
  return 0;
}

static const char *col_doc(const char *name) {
  static const struct {
    const char *n, *d;
  } docs[] = {
    { "share_pct", "share of the report's total time, percent 0-100" },
    { "total_ns", "total time, ns" },
    { "mean_ns", "mean time per call, ns" },
    { "med_ns", "median time per call, ns" },
    { "min_ns", "shortest call, ns" },
    { "max_ns", "longest call, ns" },
    { "stddev_ns", "standard deviation of the call time, ns" },
    { "calls", "number of calls (kernel instances, API calls)" },
    { "instances", "number of range instances" },
    { "count", "number of operations" },
    { "total_bytes", "total bytes moved" },
    { "mean_bytes", "mean bytes per operation" },
    { "med_bytes", "median bytes per operation" },
    { "min_bytes", "smallest operation, bytes" },
    { "max_bytes", "largest operation, bytes" },
    { "stddev_bytes", "standard deviation of the size, bytes" },
    { "name", "kernel, API function, memory operation or range name" },
    { "style", "NVTX range style (PushPop, StartEnd)" },
    { "grid_x", "grid size x (blocks)" },
    { "grid_y", "grid size y" },
    { "grid_z", "grid size z" },
    { "block_x", "block size x (threads)" },
    { "block_y", "block size y" },
    { "block_z", "block size z" },
    { "short_name", "kernel name without return type, namespaces, templates and arguments" },
    { "size_unit", "unit the tool printed sizes in (values here are bytes)" },
    { "line", "line number in the input" },
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
    if (strcmp(docs[i].n, name) == 0) return docs[i].d;
  return "as printed by nsys (text)";
}

/* Decides the table name (announced or inferred) and creates columns. */
static void report_begin(nsys_state *st, report *r, size_t first_name_row_hint) {
  (void)first_name_row_hint;
  char name[128];
  int kern = has_col(r, "grid");
  if (st->pending[0]) snprintf(name, sizeof name, "%s", st->pending);
  else if (kern) snprintf(name, sizeof name, "cuda_gpu_kern_sum");
  else if (has_col(r, "style")) snprintf(name, sizeof name, "nvtx_sum");
  else if (has_col(r, "total_bytes")) snprintf(name, sizeof name, "cuda_gpu_mem_size_sum");
  else if (has_col(r, "count") && has_col(r, "total_ns")) snprintf(name, sizeof name, "cuda_gpu_mem_time_sum");
  else if (has_col(r, "instances") && has_col(r, "total_ns")) snprintf(name, sizeof name, "cuda_gpu_kern_sum");
  else if (has_col(r, "calls")) snprintf(name, sizeof name, "cuda_api_sum"); /* refined by the first name */
  else snprintf(name, sizeof name, "nsys_report");
  int iskern = strcmp(name, "cuda_gpu_kern_sum") == 0;
  if (iskern)
    for (size_t i = 0; i < r->n; i++)
      if (strcmp(r->cs[i].name, "instances") == 0) snprintf(r->cs[i].name, sizeof r->cs[i].name, "calls");
  r->t = pl_table_new(name); /* the final name (suffix) is given by report_finish */
  for (size_t i = 0; i < r->n; i++) {
    colspec *c = &r->cs[i];
    if (c->kind == C_XYZ) {
      /* grid_x/_y/_z; a second GridXYZ column gets grid2_x/_y/_z, ... */
      char nm[3][80];
      for (int k = 1;; k++) {
        char base[72];
        if (k == 1) snprintf(base, sizeof base, "%s", c->name);
        else snprintf(base, sizeof base, "%.60s%d", c->name, k);
        for (int d = 0; d < 3; d++) snprintf(nm[d], sizeof nm[d], "%s_%c", base, "xyz"[d]);
        if (pl_table_col(r->t, nm[0]) < 0 && pl_table_col(r->t, nm[1]) < 0 && pl_table_col(r->t, nm[2]) < 0) break;
      }
      c->col = pl_table_add_doc_col(r->t, nm[0], PL_INT, col_doc(nm[0]));
      c->col2 = pl_table_add_doc_col(r->t, nm[1], PL_INT, col_doc(nm[1]));
      c->col3 = pl_table_add_doc_col(r->t, nm[2], PL_INT, col_doc(nm[2]));
    } else {
      c->col = pl_table_add_doc_col(r->t, c->name,
                                    c->kind == C_NUM   ? PL_NUM
                                    : c->kind == C_INT ? PL_INT
                                                       : PL_STR,
                                    col_doc(c->name));
      /* the same name again: keep the later ones apart (_2, _3, ...) */
      for (int k = 2; c->col < 0; k++) {
        char nm[80];
        snprintf(nm, sizeof nm, "%s_%d", c->name, k);
        c->col = pl_table_add_doc_col(r->t, nm,
                                      c->kind == C_NUM   ? PL_NUM
                                      : c->kind == C_INT ? PL_INT
                                                         : PL_STR,
                                      col_doc(nm));
      }
    }
    if (c->factor != 1 && strstr(c->name, "_bytes")) { r->has_size_unit = 1; }
  }
  r->c_unit = -1;
  if (r->has_size_unit) {
    r->c_unit = pl_table_add_doc_col(r->t, "size_unit", PL_STR, col_doc("size_unit"));
    for (size_t i = 0; i < r->n; i++)
      if (strstr(r->cs[i].name, "_bytes")) {
        const char *lp = strchr(r->cs[i].label, '(');
        if (lp) snprintf(r->unitbuf, sizeof r->unitbuf, "%.*s", (int)strcspn(lp + 1, ")"), lp + 1);
        else snprintf(r->unitbuf, sizeof r->unitbuf, "%s", st->title_unit);
        r->size_unit = r->unitbuf;
        break;
      }
  }
  r->c_line = pl_table_add_doc_col(r->t, "line", PL_INT, col_doc("line"));
  st->title_unit[0] = '\0';
  st->pending[0] = '\0';
}

/* A number with optional ',' thousands groups ("1,234,567.5"): commas
** must sit between groups of three digits; then the fast CSV number path.
** Falls back to pl_parse_number_sep for anything unusual. */
static int fast_number(const char *s, size_t n, double *v) {
  char buf[64];
  if (n >= sizeof buf) return pl_parse_number_sep(s, n, 0, v);
  size_t k = 0, intend = n;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
      intend = i;
      break;
    }
  for (size_t i = 0; i < n; i++) {
    if (s[i] == ',') {
      if (i == 0 || i >= intend || s[i - 1] < '0' || s[i - 1] > '9') return -1;
      if (!(i + 4 == intend || (i + 4 < intend && s[i + 4] == ','))) return -1; /* groups of three */
      continue;
    }
    buf[k++] = s[i];
  }
  int64_t iv;
  int got = pl_csv_number(buf, k, &iv, v);
  if (got == 1) {
    *v = (double)iv;
    return 0;
  }
  if (got == 2) return 0;
  return -1;
}

/* One cell into the row; 0 or -1 with err set. */
static int put_cell(report *r, size_t k, const char *s, size_t n, size_t line, size_t col, pl_err *err) {
  colspec *c = &r->cs[k];
  /* trim, remembering where the text starts */
  while (n > 0 && (*s == ' ' || *s == '\t')) {
    s++;
    n--;
    col++;
  }
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
  char what[160];
  switch (c->kind) {
    case C_STR: pl_row_put_str(r->t, c->col, s, n); return 0;
    case C_NUM:
    case C_INT: {
      double v;
      if (!pl_parse_grouped(s, n, &v) && (n == 0 || fast_number(s, n, &v) != 0)) {
        snprintf(what, sizeof what, "a number in column '%s'", c->label);
        return pl_err_expected(err, line, col, what, s, n);
      }
      if (c->kind == C_INT) pl_row_put_int(r->t, c->col, pl_int_of(v));
      else pl_row_put_num(r->t, c->col, pl_unit_scale(v, c->factor));
      return 0;
    }
    case C_XYZ: {
      int cols[3] = { c->col, c->col2, c->col3 };
      size_t i = 0;
      for (int d = 0; d < 3; d++) {
        while (i < n && s[i] == ' ') i++;
        size_t st = i;
        while (i < n && s[i] != ' ') i++;
        int64_t v;
        if (i == st || pl_parse_int64(s + st, i - st, &v) != 0) {
          snprintf(what, sizeof what, "three integers 'X Y Z' in column '%s'", c->label);
          return pl_err_expected(err, line, col + st, what, s + st, n - st);
        }
        pl_row_put_int(r->t, cols[d], v);
      }
      while (i < n && s[i] == ' ') i++;
      if (i < n) {
        snprintf(what, sizeof what, "end of the '%s' cell after three integers", c->label);
        return pl_err_expected(err, line, col + i, what, s + i, n - i);
      }
      return 0;
    }
  }
  return 0;
}

/* The pool id of s[0..n), as pl_pool_intern gives it, through a small
** direct-mapped cache of recent ids (names repeat; the cache compares the
** pool's own copy, so a hit is exactly the id interning would return). */
static inline uint32_t intern_cached(report *r, const char *s, size_t n) {
  if (n < 8) return pl_pool_intern(r->t->pool, s, n);
  uint64_t w, h = n * 0x9E3779B97F4A7C15ull;
  memcpy(&w, s, 8);
  h ^= w * 0xff51afd7ed558ccdull;
  memcpy(&w, s + n - 8, 8);
  h ^= w * 0xc4ceb9fe1a85ec53ull;
  memcpy(&w, s + n / 2 - 4, 8);
  h ^= w * 0x94d049bb133111ebull;
  h ^= h >> 31;
  h ^= h >> 17;
  uint32_t *slot = &r->scache[h & 4095];
  if (*slot) {
    size_t ln;
    const char *ps = pl_pool_str(r->t->pool, *slot, &ln);
    if (ps && ln == n && memcmp(ps, s, n) == 0) return *slot;
  }
  return *slot = pl_pool_intern(r->t->pool, s, n);
}

/* One row of a text table, the common case only: every gap between
** columns is spaces, every cell is present, numbers are plain or ','
** grouped (pl_parse_grouped), grid/block cells are three integers.  Then
** the row is appended (the values, ids and interning order exactly those
** of the put_cell path) and 1 is returned; otherwise 0 and nothing but
** interning happened: the caller runs the general path, which gives the
** same row or the error. */
static int fast_text_row(report *r, const char *s, size_t n, size_t lineno) {
  pl_cell *row = r->cells;
  for (size_t k = 0; k < r->n; k++) {
    const colspec *c = &r->cs[k];
    size_t a = c->a, b;
    if (k + 1 < r->n) {
      b = c->b;
      size_t nexta = r->cs[k + 1].a;
      for (size_t g = b; g < nexta && g < n; g++)
        if (s[g] != ' ') return 0;
      if (b > n) b = n;
    } else b = n;
    if (a >= n) return 0;
    const char *p = s + a;
    size_t m = b - a;
    /* cells are padded with runs of spaces */
    size_t sp = pl_skip_spaces(p, 0, m);
    p += sp;
    m -= sp;
    while (m > 0 && (*p == ' ' || *p == '\t')) {
      p++;
      m--;
    }
    while (m > 0 && (p[m - 1] == ' ' || p[m - 1] == '\t' || p[m - 1] == '\r')) m--;
    switch (c->kind) {
      case C_STR: row[c->col].s = intern_cached(r, p, m); break;
      case C_NUM:
      case C_INT: {
        double v;
        if (!pl_parse_grouped(p, m, &v)) return 0;
        if (c->kind == C_INT) row[c->col].i = pl_int_of(v);
        else row[c->col].d = pl_unit_scale(v, c->factor);
        break;
      }
      case C_XYZ: {
        int cols[3] = { c->col, c->col2, c->col3 };
        size_t i = 0;
        for (int d = 0; d < 3; d++) {
          while (i < m && p[i] == ' ') i++;
          size_t st = i;
          while (i < m && p[i] != ' ') i++;
          int64_t v;
          if (i == st || pl_parse_int64(p + st, i - st, &v) != 0) return 0;
          row[cols[d]].i = v;
        }
        while (i < m && p[i] == ' ') i++;
        if (i < m) return 0;
        break;
      }
      default: return 0;
    }
  }
  if (r->c_unit >= 0) {
    if (!r->unit_id) r->unit_id = pl_pool_intern(r->t->pool, r->size_unit, strlen(r->size_unit));
    row[r->c_unit].s = r->unit_id;
  }
  row[r->c_line].i = (int64_t)lineno;
  pl_table_append(r->t, row);
  return 1;
}

static int name_used(const nsys_state *st, const char *name) {
  for (size_t i = 0; i < st->nused; i++)
    if (strcmp(st->used[i], name) == 0) return 1;
  return 0;
}

static void report_finish(nsys_state *st, report *r) {
  pl_table *t = r->t;
  r->t = NULL;
  /* an API-like table whose names are not CUDA calls is the OS runtime report */
  if (strcmp(t->name, "cuda_api_sum") == 0 && t->nrows > 0) {
    int cn = pl_table_col(t, "name");
    size_t len;
    const char *nm = cn >= 0 ? pl_cell_str(t, cn, 0, &len) : NULL;
    if (nm && strncmp(nm, "cu", 2) != 0) pl_table_set_name(t, "osrt_sum");
  }
  /* a second report of the same name (another process, another run) gets
  ** a suffix: osrt_sum, osrt_sum_2, ... in file order, whatever is kept */
  char name[128];
  snprintf(name, sizeof name, "%s", t->name);
  for (int k = 2; name_used(st, name) && k < 100000; k++) snprintf(name, sizeof name, "%.90s_%d", t->name, k);
  if (strcmp(name, t->name) != 0) pl_table_set_name(t, name);
  if (st->nused == st->capused) {
    st->capused = st->capused ? 2 * st->capused : 16;
    st->used = pl_xrealloc(st->used, st->capused * sizeof *st->used);
  }
  snprintf(st->used[st->nused++], sizeof st->used[0], "%s", name);
  if (strcmp(t->name, "cuda_gpu_kern_sum") == 0 && pl_want_table(st->o, "kernel_summary") &&
      !pl_profile_find(st->p, "kernel_summary")) {
    pl_table *k = pl_table_copy(t);
    pl_table_set_name(k, "kernel_summary");
    /* where nsys' text only restates the schema, the schema's describes it (pl_profile_add_table) */
    static const char *const restated[] = { "total_ns", "mean_ns", "line" };
    for (size_t i = 0; i < sizeof restated / sizeof restated[0]; i++) {
      int c = pl_table_col(k, restated[i]);
      if (c >= 0) pl_table_set_doc(k, c, NULL);
    }
    int cn = pl_table_col(k, "name");
    pl_table_add_doc_col(k, "short_name", PL_STR, NULL);
    if (cn >= 0) pl_fill_short_names(k, cn);
    pl_profile_add_table(st->p, k);
  }
  st->ntables++;
  if (pl_want_table(st->o, t->name)) pl_profile_add_table(st->p, t);
  else pl_table_free(t);
}

/* ---- CSV blocks ---------------------------------------------------------- */

static int csv_row(void *ud, const pl_csv_row *row, pl_err *err) {
  nsys_state *st = ud;
  report *r = st->cur;
  if (row->index == 0) {
    if (row->n > MAXCOLS)
      return pl_err_set(err, row->line, 1, "expected at most %d columns, found %zu", MAXCOLS, row->n);
    r->n = row->n;
    for (size_t i = 0; i < row->n; i++) map_header(st, row->f[i], row->len[i], &r->cs[i]);
    report_begin(st, r, 0);
    return 0;
  }
  if (row->n != r->n) {
    char what[96];
    snprintf(what, sizeof what, "%zu fields as in the header (line %zu)", r->n, st->header_line);
    pl_err_expected(err, row->line, pl_csv_field_col(row, row->n < r->n ? row->n : r->n), what,
                    row->n < r->n ? NULL : row->f[r->n], row->n < r->n ? 0 : row->len[r->n]);
    return pl_lenient_skip(st->o, st->p, err) ? 0 : -1;
  }
  for (size_t k = 0; k < r->n; k++)
    if (put_cell(r, k, row->f[k], row->len[k], row->line, pl_csv_field_col(row, k), err) != 0) {
      pl_row_discard(r->t);
      return pl_lenient_skip(st->o, st->p, err) ? 0 : -1;
    }
  if (r->c_unit >= 0) pl_row_put_str(r->t, r->c_unit, r->size_unit, strlen(r->size_unit));
  pl_row_put_int(r->t, r->c_line, (int64_t)row->line);
  pl_row_end(r->t);
  return 0;
}

static int is_csv_header(const char *s, size_t n) {
  if (memchr(s, ',', n) == NULL) return 0;
  const char *q = s;
  size_t k = n;
  if (k && *q == '"') {
    q++;
    k--;
  }
  return pl_starts(q, k, "Time (%)") || pl_starts(q, k, "Time(%)") || pl_starts(q, k, "Total (MB)") ||
         pl_starts(q, k, "Total (KiB)") || pl_starts(q, k, "Total Time (ns)");
}

static int is_dashes(const char *s, size_t n) {
  int dash = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '-') dash = 1;
    else if (s[i] != ' ' && s[i] != '\r') return 0;
  }
  return dash;
}

static int looks_like_table_header(const char *s, size_t n) {
  return pl_find(s, n, "Total") != NULL || pl_find(s, n, "Time") != NULL;
}

/* ---- detection ----------------------------------------------------------- */

static int nsys_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  int score = 0, n = 0;
  while (pl_lines_next(&c, &l) && n++ < 400) {
    if (pl_find(l.s, l.n, "' stats report") && pl_find(l.s, l.n, "Executing '")) return 90;
    if (pl_starts(l.s, l.n, "CUDA API Statistics (") || pl_starts(l.s, l.n, "CUDA Kernel Statistics (") ||
        pl_starts(l.s, l.n, "CUDA API Statistics:") || pl_starts(l.s, l.n, "CUDA Kernel Statistics:") ||
        pl_starts(l.s, l.n, "Operating System Runtime API Statistics:") ||
        pl_starts(l.s, l.n, "Operating System Runtime API Statistics ("))
      return 90;
    if (pl_starts(l.s, l.n, " ** ") &&
        (pl_find(l.s, l.n, "(cuda_") || pl_find(l.s, l.n, "(osrt_sum)") || pl_find(l.s, l.n, "(nvtx_")))
      return 90;
    if (n == 1 && is_csv_header(l.s, l.n) && pl_find(l.s, l.n, "(ns)")) return 85;
    if (pl_find(l.s, l.n, "Total Time (ns)") && (pl_find(l.s, l.n, "Num Calls") || pl_find(l.s, l.n, "Instances")))
      score = 80;
  }
  return score;
}

/* ---- parse --------------------------------------------------------------- */

/* The lines around the tables: nsys analyze's rule sections, report
** announcements and titles.  1 when t[0..tn) is one of them. */
static int heading_line(nsys_state *st, size_t lineno, const char *t, size_t tn) {
  if (pl_starts(t, tn, "Processing [") && pl_find(t, tn, "] with [")) {
    /* nsys analyze: a rule section begins */
    flush_prose(st);
    st->rule[0] = '\0';
    st->rule_title[0] = '\0';
    st->last_processing = lineno;
    st->section_body = 0;
    return 1;
  }
  /* report announcements */
  const char *ex = pl_find(t, tn, "Executing '");
  if (ex) {
    const char *a = ex + 11, *e = memchr(a, '\'', (size_t)(t + tn - a));
    if (e) normalise_report(st, a, (size_t)(e - a));
    return 1;
  }
  if (pl_starts(t, tn, "** ") && tn > 4 && t[tn - 1] == ':' && t[tn - 2] == ')') {
    const char *lp = NULL;
    for (size_t i = tn - 2; i > 0; i--)
      if (t[i] == '(') {
        lp = t + i;
        break;
      }
    if (lp) normalise_report(st, lp + 1, (size_t)(t + tn - 2 - lp - 1));
    if (lp && st->last_processing) {
      flush_prose(st);
      snprintf(st->rule, sizeof st->rule, "%.*s", (int)(t + tn - 2 - lp - 1), lp + 1);
      size_t tl = (size_t)(lp - (t + 3));
      while (tl && t[3 + tl - 1] == ' ') tl--;
      snprintf(st->rule_title, sizeof st->rule_title, "%.*s", (int)tl, t + 3);
      st->section_body = 1;
    }
    return 1;
  }
  if (pl_starts(t, tn, "SKIPPED:")) {
    st->section_body = 1;
    pl_profile_diag(st->p, lineno, "%.*s", (int)(tn < 300 ? tn : 300), t);
    st->pending[0] = '\0';
    return 1;
  }
  return title_2019(st, t, tn) || title_2021(st, t, tn);
}

/* A CSV report: the header line l and the lines up to a blank one, read
** by the CSV reader.  0, or -1 with err set. */
static int csv_report(nsys_state *st, report *r, pl_lines *c, const pl_line *l, pl_err *err) {
  const char *bs = l->s;
  size_t first = c->lineno;
  pl_line m;
  const char *be = l->s + l->n;
  while (pl_lines_peek(c, &m) && !pl_is_blank(m.s, m.n)) {
    pl_lines_next(c, &m);
    be = m.s + m.n;
  }
  memset(r, 0, sizeof *r);
  st->cur = r;
  st->header_line = first;
  pl_csv_opts co = { ',', first, st->o ? st->o->interrupt : NULL, NULL, NULL, 0, 0 };
  if (pl_csv_read(bs, (size_t)(be - bs), &co, csv_row, st, err) != 0) return -1;
  if (r->t) report_finish(st, r);
  return 0;
}

/* The columns of a text table: the dash groups of line s[0..n), named by
** the header line above it.  0, or -1 with err set. */
static int text_columns(nsys_state *st, report *r, const char *s, size_t n, const pl_line *hdr, size_t lineno,
                        pl_err *err) {
  memset(r, 0, sizeof *r);
  size_t i = 0;
  while (i < n) {
    while (i < n && s[i] != '-') i++;
    if (i >= n) break;
    size_t a = i;
    while (i < n && s[i] == '-') i++;
    if (r->n == MAXCOLS) return pl_err_set(err, lineno, a + 1, "expected at most %d columns, found more", MAXCOLS);
    r->cs[r->n].a = a;
    r->cs[r->n].b = i;
    r->n++;
  }
  for (size_t k = 0; k < r->n; k++) {
    size_t a = r->cs[k].a, b = k + 1 < r->n ? r->cs[k].b : hdr->n;
    if (a > hdr->n) a = hdr->n;
    if (b > hdr->n) b = hdr->n;
    if (b < a) b = a;
    map_header(st, hdr->s + a, b - a, &r->cs[k]);
  }
  return 0;
}

/* One row of a text table, cut at the columns' dashes.  0, or -1 with
** err set (the row is open: the caller discards it). */
static int text_row(report *r, const pl_line *m, size_t lineno, pl_err *err) {
  for (size_t k = 0; k < r->n; k++) {
    size_t a = r->cs[k].a, b = k + 1 < r->n ? r->cs[k].b : m->n;
    if (k + 1 < r->n) {
      size_t nexta = r->cs[k + 1].a;
      for (size_t g = b; g < nexta && g < m->n; g++)
        if (m->s[g] != ' ') {
          char what[2 * 96 + 64]; /* two labels (up to 95 bytes each) and the text */
          snprintf(what, sizeof what, "a space between columns '%s' and '%s'", r->cs[k].label, r->cs[k + 1].label);
          return pl_err_expected(err, lineno, g + 1, what, m->s + g, m->n - g);
        }
    }
    if (a >= m->n) {
      char what[160];
      snprintf(what, sizeof what, "a value in column '%s'", r->cs[k].label);
      return pl_err_expected(err, lineno, m->n + 1, what, NULL, 0);
    }
    if (b > m->n) b = m->n;
    if (put_cell(r, k, m->s + a, b - a, lineno, a + 1, err) != 0) return -1;
  }
  return 0;
}

/* A text table: the header line hdr, the dashes line l, then rows until a
** blank line.  0, or -1 with err set. */
static int text_table(nsys_state *st, report *r, pl_lines *c, const pl_line *l, const pl_line *hdr, pl_err *err) {
  flush_prose(st);
  st->section_body = 1;
  if (text_columns(st, r, l->s, l->n, hdr, c->lineno, err) != 0) return -1;
  report_begin(st, r, 0);
  pl_line m;
  for (;;) {
    pl_lines nx = *c; /* the next line, taken unless it is blank (one scan) */
    if (!pl_lines_next(&nx, &m) || pl_is_blank(m.s, m.n)) break;
    *c = nx;
    if (fast_text_row(r, m.s, m.n, c->lineno)) continue;
    if (text_row(r, &m, c->lineno, err) != 0) {
      pl_row_discard(r->t);
      if (pl_lenient_skip(st->o, st->p, err)) continue;
      pl_table_free(r->t);
      r->t = NULL;
      return -1;
    }
    if (r->c_unit >= 0) pl_row_put_str(r->t, r->c_unit, r->size_unit, strlen(r->size_unit));
    pl_row_put_int(r->t, r->c_line, (int64_t)c->lineno);
    pl_row_end(r->t);
  }
  report_finish(st, r);
  return 0;
}

/* The end of the input: the last prose, a cut rule section, the findings
** table, the metadata.  0, or -1 with err set (no table at all). */
static int nsys_finish(nsys_state *st, pl_profile *p, size_t lineno, pl_err *err) {
  flush_prose(st);
  if (st->last_processing && !st->section_body)
    pl_profile_diag(p, st->last_processing,
                    "the input ends in the rule section that begins here, before its "
                    "result: the file was cut short");
  if (st->findings) {
    pl_profile_add_table(p, st->findings);
    st->findings = NULL;
    st->ntables++;
  }
  if (st->ntables == 0)
    return pl_err_expected(err, lineno ? lineno : 1, 1,
                           "an nsys stats report table (a header over a dashes line, or a CSV header)", NULL, 0);
  pl_profile_meta_str(p, "tool", "Nsight Systems", strlen("Nsight Systems"));
  const char *gen = st->gen2019 ? "2019" : st->gen2023 ? "2023+" : st->gen2022 ? "2021-2022" : "unknown";
  pl_profile_meta_str(p, "report_names", gen, strlen(gen));
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  return 0;
}

static int nsys_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  nsys_state st;
  memset(&st, 0, sizeof st);
  st.p = p;
  st.o = o;
  report *r = pl_xcalloc(1, sizeof *r);
  pl_lines c;
  pl_line l, l2, prev = { NULL, 0 };
  pl_lines_init(&c, in->data, in->len);
  int rc = 0;
  while (pl_lines_next(&c, &l)) {
    if (o && o->interrupt && *o->interrupt) {
      rc = pl_err_set(err, c.lineno, 1, "interrupted");
      break;
    }
    if (o && o->progress && (c.lineno & 4095) == 0) o->progress(o->progress_ud, (size_t)(l.s - in->data), in->len);
    if (pl_is_blank(l.s, l.n)) {
      flush_prose(&st);
      prev.s = NULL;
      continue;
    }
    const char *t = l.s;
    size_t tn = l.n;
    pl_trim(&t, &tn);
    if (heading_line(&st, c.lineno, t, tn)) {
      prev.s = NULL;
      continue;
    }
    if (is_csv_header(t, tn)) { /* a CSV report */
      if ((rc = csv_report(&st, r, &c, &l, err)) != 0) break;
      prev.s = NULL;
      continue;
    }
    /* a text table: header line, then a dashes line */
    if (is_dashes(l.s, l.n) && prev.s && (looks_like_table_header(prev.s, prev.n) || st.rule[0])) {
      if ((rc = text_table(&st, r, &c, &l, &prev, err)) != 0) break;
      prev.s = NULL;
      continue;
    }
    if (st.rule[0] && !(pl_lines_peek(&c, &l2) && is_dashes(l2.s, l2.n))) {
      if (st.prose.len == 0) st.prose_line = c.lineno;
      else pl_buf_addc(&st.prose, ' ');
      pl_buf_add(&st.prose, t, tn);
    }
    prev = l;
  }
  if (rc == 0) rc = nsys_finish(&st, p, c.lineno, err);
  if (rc != 0) {
    if (r->t) pl_table_free(r->t);
    if (st.findings) pl_table_free(st.findings);
  }
  pl_buf_free(&st.prose);
  free(r);
  free(st.used);
  /* on failure, tables already handed to the profile: the loader frees the profile */
  return rc;
}

const pl_format pl_fmt_nsys_stats = {
  "nsys-stats",
  "Nsight Systems `nsys stats` / --stats=true console text and CSV (2019, 2022 and 2023+ report names)",
  "cuda_api_sum cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum osrt_sum kernel_summary",
  nsys_detect,
  nsys_parse,
};

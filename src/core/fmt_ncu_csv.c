/*
** fmt_ncu_csv.c -- format "ncu-csv": `ncu --csv` output, read with libcsv
** in strict mode.
**
** Details page (default): one row per (launch, metric), every column
** generation seen:
**   2019-2020  "ID","Process ID","Process Name","Host Name","Kernel Name",
**              "Kernel Time","Context","Stream","Section Name","Metric Name",
**              "Metric Unit","Metric Value"
**   2022+      ... "Context","Stream","Block Size","Grid Size","Device","CC",
**              "Section Name","Metric Name","Metric Unit","Metric Value"
**   2023+      plus "Rule Name","Rule Type","Rule Description",
**              "Estimated Speedup Type","Estimated Speedup"; rule rows have
**              empty metric fields, metric rows may end with a trailing comma.
** Raw page (--page raw): one row per launch, one column per metric
** ("launch__registers_per_thread", ...), an optional units row after the
** header (absent with some versions; base units with --print-units base).
**
** The profiled program's output and ==PROF== lines may come before the
** header: ==PROF== lines are read for meta, the rest goes to program_output.
** Same tables as ncu-text (see ncu.h, docs/formats-ncu.md).
*/
#include "csvread.h"
#include "format.h"
#include "ncu.h"
#include "scan.h"

#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Known identification columns. */
enum {
  C_ID,
  C_PID,
  C_PNAME,
  C_HOST,
  C_KNAME,
  C_KTIME,
  C_CTX,
  C_STREAM,
  C_BSIZE,
  C_GSIZE,
  C_DEV,
  C_CC,
  C_SEC,
  C_MNAME,
  C_MUNIT,
  C_MVAL,
  C_RNAME,
  C_RTYPE,
  C_RDESC,
  C_ESTT,
  C_EST,
  C_NKNOWN
};
static const char *const known_cols[C_NKNOWN] = {
  "ID",
  "Process ID",
  "Process Name",
  "Host Name",
  "Kernel Name",
  "Kernel Time",
  "Context",
  "Stream",
  "Block Size",
  "Grid Size",
  "Device",
  "CC",
  "Section Name",
  "Metric Name",
  "Metric Unit",
  "Metric Value",
  "Rule Name",
  "Rule Type",
  "Rule Description",
  "Estimated Speedup Type",
  "Estimated Speedup",
};

/* What a raw-page column is, beyond a metric. */
enum { RAW_OTHER, RAW_DEVICE, RAW_CC_MAJOR, RAW_CC_MINOR, RAW_ID };

typedef struct cstate {
  ncu_builder b;
  pl_profile *p;
  pl_err *err;
  const pl_parse_opts *o;
  int failed;
  /* the record being collected: field texts in `arena` */
  pl_buf arena;
  size_t *off, *len;
  size_t nf, capf;
  size_t rec_line; /* line where the record starts */
  const char *line_s;
  size_t line_n; /* raw text of that line, for columns */
  int nrec;
  /* header */
  int col[C_NKNOWN];
  size_t ncols;
  int raw;      /* raw page */
  char **hdr;   /* raw page: header names */
  char **units; /* raw page: units row (NULL entries when absent) */
  /* raw page, per column: what its metric resolves to (the same name and
  ** unit on every row), name and unit lengths, and which device attribute
  ** it is (RAW_*) */
  ncu_mkey *keys;
  size_t *nhdr, *nunit;
  unsigned char *attr;
  int units_done;
  /* current launch */
  int have_id;
  int64_t cur_id;
  char cur_sec[256];
} cstate;

static void on_field(void *s, size_t n, void *ud) {
  cstate *c = ud;
  if (c->failed) return;
  if (c->nf == c->capf) {
    c->capf = c->capf ? c->capf * 2 : 32;
    c->off = pl_xrealloc(c->off, c->capf * sizeof *c->off);
    c->len = pl_xrealloc(c->len, c->capf * sizeof *c->len);
  }
  c->off[c->nf] = c->arena.len;
  c->len[c->nf] = n;
  if (n) pl_buf_add(&c->arena, s, n);
  c->nf++;
}

static const char *fld(const cstate *c, int k, size_t *n) {
  if (k < 0 || (size_t)k >= c->nf) {
    *n = 0;
    return "";
  }
  *n = c->len[k];
  return c->arena.data ? c->arena.data + c->off[k] : "";
}

/* 1-based column where field k of the record's first line starts. */
static size_t field_col(const cstate *c, size_t k) {
  const char *s = c->line_s;
  size_t n = c->line_n, i = 0, f = 0;
  int q = 0;
  while (i < n && f < k) {
    if (s[i] == '"') q = !q;
    else if (s[i] == ',' && !q) f++;
    i++;
  }
  return i + 1;
}

static int fail_field(cstate *c, size_t k, const char *what) {
  size_t n;
  const char *s = fld(c, (int)k, &n);
  c->failed = 1;
  return pl_err_expected(c->err, c->rec_line, field_col(c, k), what, s, n);
}

/* "(384, 1, 1)" */
static int parse_dim3(const char *s, size_t n, int64_t out[3]) {
  size_t i = 0;
  if (n < 7 || s[0] != '(' || s[n - 1] != ')') return 0;
  i = 1;
  for (int k = 0; k < 3; k++) {
    while (i < n && s[i] == ' ') i++;
    size_t st = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == st || pl_parse_int64(s + st, i - st, &out[k]) != 0) return 0;
    while (i < n && s[i] == ' ') i++;
    if (i >= n || s[i] != (k < 2 ? ',' : ')')) return 0;
    i++;
  }
  return i == n;
}

static int64_t int_or_na(const char *s, size_t n) {
  int64_t v;
  double d;
  if (pl_parse_int64(s, n, &v) == 0) return v;
  if (n && pl_parse_number_sep(s, n, 0, &d) == 0 && d == floor(d)) return pl_int_of(d);
  return PL_INT_NA;
}

static int is_id_col(const cstate *c, size_t i) {
  for (int k = 0; k < C_NKNOWN; k++)
    if (c->col[k] == (int)i) return 1;
  return 0;
}

static void header_record(cstate *c) {
  c->ncols = c->nf;
  for (int k = 0; k < C_NKNOWN; k++) c->col[k] = -1;
  for (size_t i = 0; i < c->nf; i++) {
    size_t n;
    const char *s = fld(c, (int)i, &n);
    for (int k = 0; k < C_NKNOWN; k++)
      if (c->col[k] < 0 && strlen(known_cols[k]) == n && memcmp(known_cols[k], s, n) == 0) {
        c->col[k] = (int)i;
        break;
      }
  }
  if (c->col[C_ID] < 0 || c->col[C_KNAME] < 0) {
    fail_field(c, 0, "the ncu CSV header (\"ID\",...,\"Kernel Name\",...)");
    return;
  }
  c->raw = c->col[C_MNAME] < 0 || c->col[C_MVAL] < 0;
  if (c->raw) {
    c->hdr = pl_xcalloc(c->nf, sizeof *c->hdr);
    c->units = pl_xcalloc(c->nf, sizeof *c->units);
    for (size_t i = 0; i < c->nf; i++) {
      size_t n;
      const char *s = fld(c, (int)i, &n);
      c->hdr[i] = pl_xstrndup(s, n);
    }
    c->keys = pl_xcalloc(c->nf, sizeof *c->keys);
    c->nhdr = pl_xcalloc(c->nf, sizeof *c->nhdr);
    c->nunit = pl_xcalloc(c->nf, sizeof *c->nunit);
    c->attr = pl_xcalloc(c->nf, 1);
    for (size_t i = 0; i < c->nf; i++) {
      pl_ncu_mkey_init(&c->keys[i]);
      c->nhdr[i] = strlen(c->hdr[i]);
      const char *h = c->hdr[i];
      c->attr[i] = strcmp(h, "device__attribute_display_name") == 0               ? RAW_DEVICE
                   : strcmp(h, "device__attribute_compute_capability_major") == 0 ? RAW_CC_MAJOR
                   : strcmp(h, "device__attribute_compute_capability_minor") == 0 ? RAW_CC_MINOR
                                                                                  : RAW_OTHER;
      if (is_id_col(c, i)) c->attr[i] = RAW_ID;
    }
    pl_profile_meta_str(c->p, "page", "raw", 3);
  } else {
    pl_profile_meta_str(c->p, "page", "details", 7);
  }
}

/* Starts a launch from the identification fields of the record. */
static void begin_launch(cstate *c, int64_t id) {
  ncu_builder *b = &c->b;
  size_t n = 0, nn = 0, n2 = 0;
  const char *s = fld(c, c->col[C_PNAME], &n);
  if (n) {
    const char *ps = fld(c, c->col[C_PID], &n2);
    pl_ncu_b_process(b, s, n, int_or_na(ps, n2));
  }
  pl_ncu_b_begin(b, c->rec_line);
  pl_row_put_int(b->k, b->k_ncu_id, id);
  const char *name = fld(c, c->col[C_KNAME], &nn);
  int64_t dims[6];
  int have = 0;
  const char *bs = fld(c, c->col[C_BSIZE], &n), *gs = fld(c, c->col[C_GSIZE], &n2);
  if (parse_dim3(gs, n2, dims) && parse_dim3(bs, n, dims + 3)) have = 1;
  size_t nctx, nst, ndev, ncc, nts;
  const char *ctx = fld(c, c->col[C_CTX], &nctx), *st = fld(c, c->col[C_STREAM], &nst);
  const char *dev = fld(c, c->col[C_DEV], &ndev), *cc = fld(c, c->col[C_CC], &ncc);
  const char *ts = fld(c, c->col[C_KTIME], &nts);
  pl_ncu_b_header(b, nn ? name : NULL, nn, have ? dims : NULL, int_or_na(ctx, nctx), int_or_na(st, nst),
                  int_or_na(dev, ndev), cc, ncc, ts, nts);
  c->have_id = 1;
  c->cur_id = id;
  c->cur_sec[0] = '\0';
}

static void details_record(cstate *c) {
  ncu_builder *b = &c->b;
  size_t n;
  const char *s = fld(c, c->col[C_ID], &n);
  int64_t id;
  if (pl_parse_int64(s, n, &id) != 0) {
    fail_field(c, (size_t)c->col[C_ID], "a launch ID (an integer)");
    return;
  }
  if (!c->have_id || id != c->cur_id) begin_launch(c, id);
  size_t nsec, nm, nu, nv, nrn, nrt, nrd, net, ne;
  const char *sec = fld(c, c->col[C_SEC], &nsec);
  const char *mn = fld(c, c->col[C_MNAME], &nm);
  const char *mu = fld(c, c->col[C_MUNIT], &nu);
  const char *mv = fld(c, c->col[C_MVAL], &nv);
  const char *rn = fld(c, c->col[C_RNAME], &nrn);
  const char *rt = fld(c, c->col[C_RTYPE], &nrt);
  const char *rd = fld(c, c->col[C_RDESC], &nrd);
  const char *et = fld(c, c->col[C_ESTT], &net);
  const char *ev = fld(c, c->col[C_EST], &ne);
  if (nm == 0 && (nrn || nrt || nrd)) {
    double est = NAN, estl = NAN, v;
    if (ne) {
      if (pl_parse_double(ev, ne, &v) != 0) {
        fail_field(c, (size_t)c->col[C_EST], "an estimated speedup (a number)");
        return;
      }
      if (net == 5 && memcmp(et, "local", 5) == 0) estl = v;
      else est = v;
    }
    pl_ncu_b_rule(b, sec, nsec, rn, nrn, rt, nrt, rd, nrd, est, estl, c->rec_line);
    return;
  }
  if ((size_t)c->col[C_MVAL] >= c->nf) {
    c->failed = 1;
    pl_err_set(c->err, c->rec_line, c->line_n + 1, "expected %zu fields (up to \"Metric Value\"), found %zu",
               (size_t)c->col[C_MVAL] + 1, c->nf);
    return;
  }
  if (nm == 0) {
    fail_field(c, (size_t)c->col[C_MNAME], "a metric name or a rule");
    return;
  }
  if (nsec < sizeof c->cur_sec && (strlen(c->cur_sec) != nsec || memcmp(c->cur_sec, sec, nsec) != 0)) {
    memcpy(c->cur_sec, sec, nsec);
    c->cur_sec[nsec] = '\0';
    b->nsections++;
  }
  if (pl_ncu_b_metric(b, sec, nsec, pl_ncu_section_class(sec, nsec), mn, nm, mu, nu, mv, nv, c->rec_line, 0, c->err) !=
      0) {
    c->err->col = field_col(c, (size_t)c->col[C_MVAL]); /* only now: it reads the line up to the field */
    c->failed = 1;
  }
}

static void raw_record(cstate *c) {
  ncu_builder *b = &c->b;
  size_t n;
  const char *s = fld(c, c->col[C_ID], &n);
  if (!c->units_done) {
    c->units_done = 1;
    if (n == 0) { /* the units row */
      for (size_t i = 0; i < c->nf && i < c->ncols; i++) {
        size_t un;
        const char *u = fld(c, (int)i, &un);
        if (un && !is_id_col(c, i)) {
          c->units[i] = pl_xstrndup(u, un);
          c->nunit[i] = un;
        }
      }
      return;
    }
  }
  int64_t id;
  if (pl_parse_int64(s, n, &id) != 0) {
    fail_field(c, (size_t)c->col[C_ID], "a launch ID (an integer)");
    return;
  }
  begin_launch(c, id);
  double ccmaj = NAN, ccmin = NAN;
  for (size_t i = 0; i < c->nf && i < c->ncols; i++) {
    if (c->attr[i] == RAW_ID) continue;
    size_t vn;
    const char *v = fld(c, (int)i, &vn);
    if (vn == 0) continue;
    const char *u = c->units[i] ? c->units[i] : "";
    if (c->attr[i] == RAW_DEVICE && pl_profile_meta_get(c->p, "device") == NULL)
      pl_profile_meta_str(c->p, "device", v, vn);
    if (c->attr[i] == RAW_CC_MAJOR) pl_parse_double(v, vn, &ccmaj);
    if (c->attr[i] == RAW_CC_MINOR) pl_parse_double(v, vn, &ccmin);
    if (pl_ncu_b_metric_fast(b, &c->keys[i], v, vn)) continue;
    if (pl_ncu_b_metric_k(b, &c->keys[i], NULL, 0, NULL, NCU_SEC_RAW, c->hdr[i], c->nhdr[i], u, c->nunit[i], v, vn,
                          c->rec_line, 0, c->err) != 0) {
      c->err->col = field_col(c, i);                     /* only now: it reads the line up to the field */
      if (pl_lenient_skip(c->o, c->p, c->err)) continue; /* lenient: only that cell */
      c->failed = 1;
      return;
    }
  }
  /* compute capability from the raw attributes when the CC column is absent */
  if (c->col[C_CC] < 0 && !isnan(ccmaj) && !isnan(ccmin)) {
    char cc[32];
    int k = snprintf(cc, sizeof cc, "%d.%d", (int)ccmaj, (int)ccmin);
    pl_ncu_b_header(b, NULL, 0, NULL, PL_INT_NA, PL_INT_NA, PL_INT_NA, cc, (size_t)k, NULL, 0);
  }
  pl_ncu_b_end(b);
}

static void on_record(int term, void *ud) {
  cstate *c = ud;
  (void)term;
  if (c->failed) {
    c->nf = 0;
    c->arena.len = 0;
    return;
  }
  if (c->nf == 0) return;
  if (c->nrec == 0) header_record(c);
  else if (c->nf == 1 && c->ncols > 1) {
    size_t n;
    const char *s = fld(c, 0, &n);
    if (n) pl_ncu_b_output(&c->b, c->rec_line, s, n);
  } else if (c->raw) raw_record(c);
  else details_record(c);
  /* lenient: a bad record (after the header) is skipped and listed */
  if (c->failed && c->nrec > 0 && pl_lenient_skip(c->o, c->p, c->err)) c->failed = 0;
  pl_ncu_b_flush(&c->b); /* the record's value texts are read before its fields go */
  c->nrec++;
  c->nf = 0;
  c->arena.len = 0;
}

static int nc_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  while (pl_lines_next(&c, &l)) {
    const char *t = l.s;
    size_t n = l.n;
    pl_trim(&t, &n);
    if (pl_starts(t, n, "\xef\xbb\xbf")) {
      t += 3;
      n -= 3;
    }
    if (pl_starts(t, n, "\"ID\",") && pl_find(t, n, "\"Kernel Name\"")) return 95;
  }
  return 0;
}

static void prof_line(cstate *c, const char *t, size_t n, size_t line) {
  if (pl_starts(t, n, "==PROF==")) {
    const char *r = t + 8;
    size_t rn = n - 8;
    pl_trim(&r, &rn);
    if (pl_starts(r, rn, "Connected to process ")) {
      const char *pp = memchr(r, '(', rn);
      if (pp && r[rn - 1] == ')' && pl_profile_meta_get(c->p, "executable") == NULL)
        pl_profile_meta_str(c->p, "executable", pp + 1, rn - (size_t)(pp - r) - 2);
    }
    return;
  }
  pl_profile_diag(c->p, line, "ncu message: %.*s", (int)(n > 200 ? 200 : n), t);
}

static void free_state(cstate *c) {
  if (c->hdr)
    for (size_t i = 0; i < c->ncols; i++) free(c->hdr[i]);
  if (c->units)
    for (size_t i = 0; i < c->ncols; i++) free(c->units[i]);
  free(c->hdr);
  free(c->units);
  free(c->keys);
  free(c->nhdr);
  free(c->nunit);
  free(c->attr);
  free(c->off);
  free(c->len);
  pl_buf_free(&c->arena);
}

static int nc_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  cstate c;
  memset(&c, 0, sizeof c);
  c.p = p;
  c.err = err;
  c.o = o;
  pl_ncu_b_init(&c.b, p, o);
  c.b.defer_raw = 1; /* value texts stay in `arena` until the record ends: pl_ncu_b_flush there */
  pl_buf_init(&c.arena);
  struct csv_parser cp;
  if (csv_init(&cp, CSV_STRICT | CSV_STRICT_FINI) != 0) {
    pl_ncu_b_free(&c.b);
    free_state(&c);
    return pl_err_set(err, 0, 0, "libcsv initialisation failed");
  }
  pl_lines lc;
  pl_line l;
  pl_lines_init(&lc, in->data, in->len);
  int header = 0, at_start = 1;
  while (pl_lines_next(&lc, &l)) {
    if ((lc.lineno & 4095) == 0) {
      if (o && o->interrupt && *o->interrupt) {
        pl_err_set(err, lc.lineno, 1, "interrupted");
        goto fail;
      }
      if (o && o->progress) o->progress(o->progress_ud, (size_t)(l.s - in->data), in->len);
    }
    const char *t = l.s;
    size_t n = l.n;
    pl_trim(&t, &n);
    if (!header) {
      if (pl_starts(t, n, "\xef\xbb\xbf")) {
        t += 3;
        n -= 3;
      }
      if (pl_starts(t, n, "\"ID\",") && pl_find(t, n, "\"Kernel Name\"")) header = 1;
      else {
        if (n == 0) continue;
        if (t[0] == '=' && pl_starts(t, n, "==")) prof_line(&c, t, n, lc.lineno);
        else pl_ncu_b_output(&c.b, lc.lineno, t, n);
        continue;
      }
      if (t != l.s) {
        l.n -= (size_t)(t - l.s);
        l.s = t;
      }
    }
    if (at_start) {
      if (n == 0) continue;
      if (pl_starts(t, n, "==")) {
        prof_line(&c, t, n, lc.lineno);
        continue;
      }
      c.rec_line = lc.lineno;
      c.line_s = l.s;
      c.line_n = l.n;
    }
    /* the line with its line end, as libcsv must see it */
    size_t full = (size_t)(lc.p - l.s);
    pl_csv_grow_hint(&cp, full);
    size_t used = csv_parse(&cp, l.s, full, on_field, on_record, &c);
    if (c.failed) goto fail;
    if (used != full) {
      size_t col = used + 1;
      pl_err_expected(err, lc.lineno, col, "well-formed CSV (libcsv strict mode: a quote only around a whole field)",
                      l.s + used, l.n > used ? l.n - used : 0);
      if (!header || c.nrec == 0 || !pl_lenient_skip(o, p, err)) goto fail;
      /* lenient: drop the record in progress and start again on the next line */
      csv_free(&cp);
      if (csv_init(&cp, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        pl_err_set(err, 0, 0, "libcsv initialisation failed");
        goto fail;
      }
      c.nf = 0;
      c.arena.len = 0;
      at_start = 1;
      continue;
    }
    at_start = cp.pstate == 0; /* libcsv's ROW_NOT_BEGUN: no record in progress */
  }
  if (csv_fini(&cp, on_field, on_record, &c) != 0) {
    pl_err_expected(err, lc.lineno + 1, 1, "the closing quote of the last CSV field", NULL, 0);
    if (!pl_lenient_skip(o, p, err)) goto fail;
  }
  if (c.failed) goto fail;
  if (!header) {
    pl_err_expected(err, lc.lineno ? lc.lineno : 1, 1,
                    "the ncu CSV header row (\"ID\",\"Process ID\",...,\"Kernel Name\",...)", NULL, 0);
    goto fail;
  }
  if (c.b.nkernels == 0 && !c.b.open) {
    pl_err_expected(err, lc.lineno + 1, 1, "at least one launch row after the ncu CSV header", NULL, 0);
    goto fail;
  }
  csv_free(&cp);
  pl_ncu_b_finish(&c.b);
  free_state(&c);
  return 0;
fail:
  csv_free(&cp);
  if (c.b.open) {
    pl_row_discard(c.b.k);
    c.b.open = 0;
  }
  pl_ncu_b_free(&c.b);
  free_state(&c);
  return -1;
}

const pl_format pl_fmt_ncu_csv = {
  "ncu-csv",
  "Nsight Compute CSV (ncu --csv): details page of every column generation, and the raw page",
  "kernels metrics rules program_output",
  nc_detect,
  nc_parse,
};

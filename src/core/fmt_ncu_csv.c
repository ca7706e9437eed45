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
#include "par.h"
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
  /* the line loop (nc_lines): the header row seen, no record in progress */
  int header, at_start;
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

/* What nc_lines stops for. */
enum { NC_END, NC_FAIL, NC_AT, NC_READY };

/* "ID" as the first field of the line at p: `"123",` (digits only). */
static int line_id(const char *p, const char *end, int64_t *id) {
  const char *q = p;
  if (q >= end || *q != '"') return 0;
  q++;
  int64_t v = 0;
  int nd = 0;
  while (q < end && *q >= '0' && *q <= '9' && nd < 18) {
    v = v * 10 + (*q - '0');
    q++;
    nd++;
  }
  if (nd == 0 || end - q < 2 || q[0] != '"' || q[1] != ',') return 0;
  *id = v;
  return 1;
}

/* Does a launch's first record seem to begin at line start p: its ID
** field, and the line before begins with another?  (A guess: the line may
** sit inside a quoted field; the reader's own state tells.)  lo: the
** input's start. */
static int launch_line(const char *lo, const char *p, const char *end, int64_t *id) {
  if (p <= lo || !line_id(p, end, id)) return 0;
  const char *q = p - 1;
  while (q > lo && q[-1] != '\n') q--;
  int64_t prev;
  return line_id(q, p, &prev) && prev != *id;
}

/* Reads the lines of lc: NC_END at the end of the input, NC_FAIL (err
** set), NC_READY (ready: the header and, on the raw page, the units row
** are read) once ready is set and they are, NC_AT at the first launch
** line at or past until that begins a record (lc->p there, not read).
** in: the main thread's input (interrupt, progress), NULL in a worker. */
static int nc_lines(cstate *c, struct csv_parser *cp, pl_lines *lc, const char *until, int *ready, const pl_input *in) {
  const pl_parse_opts *o = c->o;
  pl_line l;
  int64_t id;
  for (;;) {
    if (ready && *ready == 0 && c->header && c->at_start && c->nrec > 0 && (!c->raw || c->units_done)) {
      *ready = 1;
      return NC_READY;
    }
    if (until && lc->p >= until && c->at_start && launch_line(lc->base, lc->p, lc->end, &id)) return NC_AT;
    if (!pl_lines_next(lc, &l)) break;
    if (in && (lc->lineno & 4095) == 0) {
      if (o && o->interrupt && *o->interrupt) {
        pl_err_set(c->err, lc->lineno, 1, "interrupted");
        return NC_FAIL;
      }
      if (o && o->progress) o->progress(o->progress_ud, (size_t)(l.s - in->data), in->len);
    }
    const char *t = l.s;
    size_t n = l.n;
    pl_trim(&t, &n);
    if (!c->header) {
      if (pl_starts(t, n, "\xef\xbb\xbf")) {
        t += 3;
        n -= 3;
      }
      if (pl_starts(t, n, "\"ID\",") && pl_find(t, n, "\"Kernel Name\"")) c->header = 1;
      else {
        if (n == 0) continue;
        if (t[0] == '=' && pl_starts(t, n, "==")) prof_line(c, t, n, lc->lineno);
        else pl_ncu_b_output(&c->b, lc->lineno, t, n);
        continue;
      }
      if (t != l.s) {
        l.n -= (size_t)(t - l.s);
        l.s = t;
      }
    }
    if (c->at_start) {
      if (n == 0) continue;
      if (pl_starts(t, n, "==")) {
        prof_line(c, t, n, lc->lineno);
        continue;
      }
      c->rec_line = lc->lineno;
      c->line_s = l.s;
      c->line_n = l.n;
    }
    /* the line with its line end, as libcsv must see it */
    size_t full = (size_t)(lc->p - l.s);
    pl_csv_grow_hint(cp, full);
    size_t used = csv_parse(cp, l.s, full, on_field, on_record, c);
    if (c->failed) return NC_FAIL;
    if (used != full) {
      size_t col = used + 1;
      pl_err_expected(c->err, lc->lineno, col,
                      "well-formed CSV (libcsv strict mode: a quote only around a whole field)", l.s + used,
                      l.n > used ? l.n - used : 0);
      if (!c->header || c->nrec == 0 || !pl_lenient_skip(o, c->p, c->err)) return NC_FAIL;
      /* lenient: drop the record in progress and start again on the next line */
      csv_free(cp);
      if (csv_init(cp, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        pl_err_set(c->err, 0, 0, "libcsv initialisation failed");
        return NC_FAIL;
      }
      c->nf = 0;
      c->arena.len = 0;
      c->at_start = 1;
      continue;
    }
    c->at_start = cp->pstate == 0; /* libcsv's ROW_NOT_BEGUN: no record in progress */
  }
  return NC_END;
}

/* ---- several threads ---------------------------------------------------- */

/* Past the header (and the raw page's units row), the rest is read through
** pl_par_body_read (par.h) in pieces cut at guessed offsets
** (pl_parse_opts.chunk_bytes, 4 MiB by default); each piece after the
** first begins at its first line that seems to begin a launch (nc_first,
** launch_line: an ID field, another one on the line before).  Workers read
** pieces from there with a reader of their own (the header's columns
** copied, their own libcsv parser, builder and profile), up to the first
** such line at or past the next guess where their parser stands between
** records, and end their last launch.  The main thread reads the first
** piece and walks on in file order: where it stands between records at a
** piece's start, that line begins a new launch for it too, and the
** builders merge (pl_ncu_b_merge_fits: no locale numbers seen, ...), it
** appends the piece (nc_merge, pl_ncu_b_merge) and goes on from where the
** worker stopped; else (the line sat inside a quoted field, ...) it reads
** the piece itself, so errors, diagnostics and --lenient are the
** one-thread read's.  Workers read with --lenient off: a piece with a bad
** record is read again. */
#define NC_CHUNK_DEFAULT (4u << 20)

typedef struct nc_piece {
  const char *start;
  cstate *c;
  pl_profile *p;
  pl_err err;
} nc_piece;

/* The main reader, as the driver's callbacks see it. */
typedef struct nc_body {
  cstate *c; /* its header fields: read-only once the pieces start */
  struct csv_parser *cp;
  const pl_input *in;
  pl_parse_opts wo; /* the workers' options: not lenient, no progress */
} nc_body;

static void nc_piece_free(void *piece) {
  nc_piece *w = piece;
  if (w->c) {
    pl_ncu_b_free(&w->c->b);
    free_state(w->c);
    free(w->c);
  }
  if (w->p) pl_profile_free(w->p);
  free(w);
}

/* A worker's reader: the main reader's header fields, all else fresh. */
static cstate *nc_clone(const cstate *m, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  cstate *c = pl_xcalloc(1, sizeof *c);
  c->p = p;
  c->err = err;
  c->o = o;
  pl_ncu_b_init(&c->b, p, o);
  c->b.defer_raw = 1;
  pl_buf_init(&c->arena);
  memcpy(c->col, m->col, sizeof c->col);
  c->ncols = m->ncols;
  c->raw = m->raw;
  c->nrec = 1;
  c->units_done = m->units_done;
  c->header = 1;
  c->at_start = 1;
  if (c->raw) {
    c->hdr = pl_xcalloc(c->ncols, sizeof *c->hdr);
    c->units = pl_xcalloc(c->ncols, sizeof *c->units);
    c->keys = pl_xcalloc(c->ncols, sizeof *c->keys);
    c->nhdr = pl_xmalloc(c->ncols * sizeof *c->nhdr);
    c->nunit = pl_xmalloc(c->ncols * sizeof *c->nunit);
    c->attr = pl_xmalloc(c->ncols);
    for (size_t i = 0; i < c->ncols; i++) {
      c->hdr[i] = pl_xstrdup(m->hdr[i]);
      c->units[i] = m->units[i] ? pl_xstrdup(m->units[i]) : NULL;
      pl_ncu_mkey_init(&c->keys[i]);
    }
    memcpy(c->nhdr, m->nhdr, c->ncols * sizeof *c->nhdr);
    memcpy(c->nunit, m->nunit, c->ncols * sizeof *c->nunit);
    memcpy(c->attr, m->attr, c->ncols);
  }
  return c;
}

/* The first line at or past line start q, before lim, that seems to begin
** a launch. */
static const char *nc_first(void *ud, const char *q, const char *lim, const char *end) {
  const nc_body *B = ud;
  int64_t id;
  while (q < lim) {
    if (launch_line(B->in->data, q, end, &id)) return q;
    q = memchr(q, '\n', (size_t)(end - q));
    q = q ? q + 1 : end;
  }
  return NULL;
}

static void *nc_piece_read(void *ud, const char *start, const char *lim, const char *end, const char **stop,
                           size_t *nlines, int *ended) {
  const nc_body *B = ud;
  *ended = 0;
  *stop = start;
  *nlines = 0;
  struct csv_parser cp;
  if (csv_init(&cp, CSV_STRICT | CSV_STRICT_FINI) != 0) return NULL;
  nc_piece *w = pl_xcalloc(1, sizeof *w);
  w->start = start;
  w->p = pl_profile_new("ncu-csv", B->in->name);
  pl_err_clear(&w->err);
  w->c = nc_clone(B->c, w->p, &B->wo, &w->err);
  cstate *c = w->c;
  pl_lines lc;
  pl_lines_init(&lc, start, (size_t)(end - start));
  lc.base = B->in->data;
  int r = nc_lines(c, &cp, &lc, lim < end ? lim : NULL, NULL, NULL);
  *stop = lc.p;
  *nlines = lc.lineno;
  int ok = 0;
  if (r == NC_AT) ok = 1;
  else if (r == NC_END) ok = csv_fini(&cp, on_field, on_record, c) == 0 && !c->failed;
  csv_free(&cp);
  if (!ok) {
    nc_piece_free(w);
    return NULL;
  }
  if (c->b.open) pl_ncu_b_end(&c->b);
  pl_ncu_b_flush(&c->b);
  return w;
}

/* The main reader up to the first launch line at or past upto where its
** parser stands between records: 0 there or at the input's end, -1. */
static int nc_serial(void *ud, pl_lines *lc, const char *upto) {
  const nc_body *B = ud;
  return nc_lines(B->c, B->cp, lc, upto < lc->end ? upto : NULL, NULL, B->in) == NC_FAIL ? -1 : 0;
}

/* Piece w appended to the main reader, which stands at its first line
** between records (line_off lines read before it); -1 when that line does
** not begin a launch for it, or the builders do not merge. */
static int nc_merge(void *ud, void *piece, size_t line_off) {
  const nc_body *B = ud;
  cstate *c = B->c;
  nc_piece *w = piece;
  int64_t id;
  /* the line begins a launch for the main reader too (on the details
  ** page: its ID is not the open launch's) */
  int begins =
      launch_line(B->in->data, w->start, B->in->data + B->in->len, &id) && (c->raw || !c->have_id || c->cur_id != id);
  if (!begins || !pl_ncu_b_merge_fits(&c->b, &w->c->b)) return -1;
  pl_ncu_b_merge(&c->b, &w->c->b, line_off);
  pl_par_merge_meta(c->p, w->p);
  pl_par_merge_diags(c->p, w->p, line_off);
  c->have_id = w->c->have_id;
  c->cur_id = w->c->cur_id;
  memcpy(c->cur_sec, w->c->cur_sec, sizeof c->cur_sec);
  c->nrec += w->c->nrec - 1;
  return 0;
}

static const pl_par_body nc_ops = { nc_piece_read, nc_serial, nc_merge, nc_piece_free, nc_first };

/* Reads the input from lc on: NC_END, or NC_FAIL. */
static int nc_lines_par(cstate *c, struct csv_parser *cp, pl_lines *lc, const pl_input *in, int jobs, size_t chunk) {
  nc_body B;
  memset(&B, 0, sizeof B);
  B.c = c;
  B.cp = cp;
  B.in = in;
  if (c->o) B.wo = *c->o;
  B.wo.lenient = 0;
  B.wo.progress = NULL;
  return pl_par_body_read(&nc_ops, &B, lc, jobs, chunk, c->o, in->len, c->err) < 0 ? NC_FAIL : NC_END;
}

static int nc_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  cstate c;
  memset(&c, 0, sizeof c);
  c.p = p;
  c.err = err;
  c.o = o;
  c.at_start = 1;
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
  pl_lines_init(&lc, in->data, in->len);
  int jobs = pl_par_jobs(o);
  size_t chunk = o && o->chunk_bytes ? o->chunk_bytes : NC_CHUNK_DEFAULT;
  int ready = jobs >= 2 && in->len >= 2 * chunk ? 0 : -1; /* -1: one thread */
  int r = nc_lines(&c, &cp, &lc, NULL, &ready, in);
  /* the header read, and the ID column first: the rest on several threads */
  if (r == NC_READY) {
    r = c.col[C_ID] == 0 && (size_t)(in->data + in->len - lc.p) >= 2 * chunk
            ? nc_lines_par(&c, &cp, &lc, in, jobs, chunk)
            : nc_lines(&c, &cp, &lc, NULL, NULL, in);
  }
  if (r == NC_FAIL) goto fail;
  if (csv_fini(&cp, on_field, on_record, &c) != 0) {
    pl_err_expected(err, lc.lineno + 1, 1, "the closing quote of the last CSV field", NULL, 0);
    if (!pl_lenient_skip(o, p, err)) goto fail;
  }
  if (c.failed) goto fail;
  if (!c.header) {
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

/*
** ncu_builder.c -- the table builder the Nsight Compute readers share
** (ncu.h): from the launches, metrics, rules and output lines a reader
** finds, it fills the standard tables kernels, metrics, rules and
** program_output, so that every ncu recipe runs on either export.  Which
** metric becomes which kernel column is ncu_metrics.c's.
*/
#include "ncu.h"
#include "par.h"
#include "schema.h"
#include "names.h"
#include "scan.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static int eqn(const char *s, size_t n, const char *w) { return strlen(w) == n && memcmp(s, w, n) == 0; }


static double snap_bytes(double v, double factor, const char *raw, size_t n) {
  if (factor <= 1) return v;
  size_t dec = 0;
  const char *dot = memchr(raw, '.', n);
  if (dot == NULL) dot = memchr(raw, ',', n); /* locale decimal comma */
  if (dot) dec = n - (size_t)(dot - raw) - 1;
  static const double p10[] = { 1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8 }; /* pow(10, -dec), exactly */
  double half = factor * (dec < sizeof p10 / sizeof p10[0] ? p10[dec] : pow(10, -(double)dec)) / 2;
  double m = floor(v / 128 + 0.5) * 128;
  return fabs(m - v) < half ? m : v;
}

/* ---- the builder -------------------------------------------------------- */

void pl_ncu_b_init(ncu_builder *b, pl_profile *p, const pl_parse_opts *o) {
  memset(b, 0, sizeof *b);
  b->p = p;
  b->o = o;
  b->want_k = pl_want_table(o, "kernels");
  b->want_m = pl_want_table(o, "metrics");
  b->want_r = pl_want_table(o, "rules");
  b->want_po = pl_want_table(o, "program_output");
  b->raw_all = o && o->raw_text;
  b->pid = PL_INT_NA;
  b->names = pl_pool_new();
  pl_buf_init(&b->tmp);
  pl_table *k = b->k = pl_table_new("kernels");
  b->k_id = pl_table_add_doc_col(k, "id", PL_INT, "launch number, 0-based, in file order");
  b->k_name = pl_std_col(k, "name", NULL);
  b->k_short = pl_std_col(k, "short_name", NULL);
  b->k_gx = pl_std_col(k, "grid_x", "grid dimension x, blocks (from the kernel line; else Grid Size with y = z = 1)");
  b->k_gy = pl_std_col(k, "grid_y", NULL);
  b->k_gz = pl_std_col(k, "grid_z", NULL);
  b->k_bx =
      pl_std_col(k, "block_x", "block dimension x, threads (from the kernel line; else Block Size with y = z = 1)");
  b->k_by = pl_std_col(k, "block_y", NULL);
  b->k_bz = pl_std_col(k, "block_z", NULL);
  b->k_grid = -1;
  b->k_block = -1;
  b->k_dev = pl_std_col(k, "device", NULL);
  b->k_cc = pl_table_add_doc_col(k, "cc", PL_STR, "compute capability, e.g. \"8.6\"");
  b->k_ctx = pl_std_col(k, "context", NULL);
  b->k_stream = pl_std_col(k, "stream", NULL);
  /* every canonical column, in table order, so the schema is the same for every file */
  const char *cname, *cdoc;
  int cnum;
  for (size_t i = 0; (cname = pl_ncu_canon_column(i, &cnum, &cdoc)) != NULL; i++) {
    if (cdoc == NULL || pl_table_col(k, cname) >= 0) continue;
    pl_table_add_doc_col(k, cname, cnum ? PL_NUM : PL_STR, cdoc);
  }
  b->k_grid = pl_table_col(k, "grid_size");
  b->k_block = pl_table_col(k, "block_size");
  b->k_ts = pl_table_add_doc_col(k, "timestamp", PL_STR,
                                 "launch time as printed by older ncu versions (kernel line or Kernel Time column)");
  b->k_proc = pl_table_add_doc_col(k, "process", PL_STR, "profiled process name");
  b->k_pid = pl_std_col(k, "pid", NULL);
  b->k_range = pl_table_add_doc_col(k, "nvtx_range", PL_STR,
                                    "NVTX range named on the '==PROF==   N: RANGE' line (2019-2020 layout)");
  b->k_nsec = pl_table_add_doc_col(k, "sections", PL_INT, "number of sections printed for the launch");
  b->k_line = pl_std_col(k, "line", NULL);
  b->k_ncu_id = pl_table_add_doc_col(k, "ncu_id", PL_INT, "ncu's own launch ID (CSV ID column)");
  b->k_nmiss =
      pl_table_add_doc_col(k, "missing_values", PL_INT,
                           "values ncu could not collect, printed as '(!) nan' or '(!) n/a' (missing in value)");
  b->k_err = pl_table_add_doc_col(k, "launch_error", PL_STR,
                                  "ncu's ==ERROR== message for the launch (e.g. LaunchFailed), when it printed one");

  pl_table *m = b->m = pl_table_new("metrics");
  b->m_kid = pl_std_col(m, "kernel_id", NULL);
  b->m_sec = pl_table_add_doc_col(m, "section", PL_STR, "section name as printed (missing on the raw page)");
  b->m_metric = pl_std_col(m, "metric", NULL);
  b->m_unit = pl_std_col(m, "unit", NULL);
  b->m_base = pl_table_add_doc_col(m, "base_unit", PL_STR,
                                   "unit of value: ns, byte, byte/block, byte/s, Hz, pct, or the printed unit");
  b->m_value = pl_std_col(m, "value", NULL);
  b->m_raw = pl_std_col(m, "raw",
                        "value text as printed where it is not a number (missing for numbers, which are in value; "
                        "every value's text with the raw_text load option)");

  pl_table *r = b->r = pl_table_new("rules");
  b->r_kid = pl_std_col(r, "kernel_id", NULL);
  b->r_sec = pl_std_col(r, "section", "section (text) or rule section identifier (CSV) the rule belongs to");
  b->r_name = pl_std_col(r, "rule", "rule identifier (CSV Rule Name; missing in text)");
  b->r_sev = pl_std_col(r, "severity", NULL);
  b->r_msg = pl_std_col(r, "message", "message text, continuation lines joined, wrapped URLs re-joined");
  b->r_est = pl_std_col(r, "est_speedup_pct", "estimated global speedup, percent (Est. Speedup / Estimated Speedup)");
  b->r_estl =
      pl_table_add_doc_col(r, "est_local_speedup_pct", PL_NUM, "estimated local speedup, percent (Est. Local Speedup)");
  b->r_line = pl_std_col(r, "line", NULL);

  pl_table *po = b->po = pl_table_new("program_output");
  b->po_line = pl_table_add_doc_col(po, "line", PL_INT, "input line");
  b->po_text = pl_table_add_doc_col(po, "text", PL_STR, "a line the profiled program printed");
}

void pl_ncu_b_free(ncu_builder *b) {
  pl_table_free(b->k);
  pl_table_free(b->m);
  pl_table_free(b->r);
  pl_table_free(b->po);
  b->k = b->m = b->r = b->po = NULL;
  if (b->names) pl_pool_release(b->names);
  b->names = NULL;
  for (int i = 0; i < NCU_NSEC; i++) {
    free(b->colmap[i]);
    b->colmap[i] = NULL;
  }
  free(b->range);
  b->range = NULL;
  free(b->mid);
  b->mid = NULL;
  b->nmid = 0;
  free(b->rawc);
  b->rawc = NULL;
  b->npend = 0;
  for (int i = 0; i < NCU_KNAMES; i++) {
    free(b->kname[i].name);
    b->kname[i].name = NULL;
  }
  pl_buf_free(&b->tmp);
}

void pl_ncu_b_begin(ncu_builder *b, size_t line) {
  if (b->open) pl_ncu_b_end(b);
  b->open = 1;
  b->nsections = 0;
  b->nmissing = 0;
  pl_row_put_int(b->k, b->k_id, b->nkernels);
  pl_row_put_int(b->k, b->k_line, (int64_t)line);
  if (b->process[0]) pl_row_put_str(b->k, b->k_proc, b->process, strlen(b->process));
  if (b->pid != PL_INT_NA) pl_row_put_int(b->k, b->k_pid, b->pid);
  if (b->range) {
    pl_row_put_str(b->k, b->k_range, b->range, b->nrange);
    free(b->range);
    b->range = NULL;
  }
}

void pl_ncu_b_header(ncu_builder *b, const char *name, size_t nn, const int64_t *dims, int64_t context, int64_t stream,
                     int64_t device, const char *cc, size_t ncc, const char *ts, size_t nts) {
  pl_table *k = b->k;
  if (name) {
    /* kernel names repeat: their ids and short names' ids are kept */
    unsigned h = (unsigned)nn * 31u + (nn ? (unsigned char)name[nn / 2] * 7u + (unsigned char)name[nn - 1] : 0u);
    struct ncu_kname *e = &b->kname[h % NCU_KNAMES];
    if (e->name && e->n == nn && memcmp(e->name, name, nn) == 0 && k->cols[b->k_name]->type == PL_STR &&
        k->cols[b->k_short]->type == PL_STR) {
      pl_row_put_strid(k, b->k_name, e->name_id);
      pl_row_put_strid(k, b->k_short, e->short_id);
    } else {
      char sb[1024];
      size_t sn = pl_short_name(name, nn, sb, sizeof sb);
      pl_row_put_str(k, b->k_name, name, nn);
      pl_row_put_str(k, b->k_short, sb, sn);
      if (k->cols[b->k_name]->type == PL_STR && k->cols[b->k_short]->type == PL_STR) {
        free(e->name);
        e->name = pl_xmalloc(nn ? nn : 1);
        memcpy(e->name, name, nn);
        e->n = nn;
        e->name_id = k->cols[b->k_name]->v.str[k->nrows];
        e->short_id = k->cols[b->k_short]->v.str[k->nrows];
      }
    }
  }
  if (dims) {
    int cols[6] = { b->k_gx, b->k_gy, b->k_gz, b->k_bx, b->k_by, b->k_bz };
    for (int i = 0; i < 6; i++) pl_row_put_int(k, cols[i], dims[i]);
  }
  if (context != PL_INT_NA) pl_row_put_int(k, b->k_ctx, context);
  if (stream != PL_INT_NA) pl_row_put_int(k, b->k_stream, stream);
  if (device != PL_INT_NA) pl_row_put_int(k, b->k_dev, device);
  if (cc && ncc) {
    pl_row_put_str(k, b->k_cc, cc, ncc);
    if (b->cc[0] == '\0' && ncc < sizeof b->cc) {
      memcpy(b->cc, cc, ncc);
      b->cc[ncc] = '\0';
    }
  }
  if (ts && nts) pl_row_put_str(k, b->k_ts, ts, nts);
}

void pl_ncu_b_process(ncu_builder *b, const char *name, size_t n, int64_t pid) {
  if (!b->seen_process) {
    b->seen_process = 1;
    b->before_process = b->nkernels + (b->open ? 1 : 0);
  }
  if (n >= sizeof b->process) n = sizeof b->process - 1;
  memcpy(b->process, name, n);
  b->process[n] = '\0';
  b->pid = pid;
  if (pl_profile_meta_get(b->p, "process") == NULL) pl_profile_meta_str(b->p, "process", name, n);
  if (pid != PL_INT_NA && pl_profile_meta_get(b->p, "pid") == NULL) pl_profile_meta_num(b->p, "pid", (double)pid);
}

void pl_ncu_b_range(ncu_builder *b, const char *s, size_t n) {
  free(b->range);
  b->range = pl_xstrndup(s, n);
  b->nrange = n;
}

/* Is the open row's cell set? */
static int row_has(const pl_table *t, int col) {
  const pl_column *c = t->cols[col];
  if (c->len <= t->nrows) return 0;
  switch (c->type) {
    case PL_NUM: return !isnan(c->v.num[t->nrows]);
    case PL_STR: return c->v.str[t->nrows] != 0;
    default: return c->v.i64[t->nrows] != PL_INT_NA;
  }
}
static double row_num(const pl_table *t, int col) {
  if (col < 0 || !row_has(t, col)) return NAN;
  const pl_column *c = t->cols[col];
  if (c->type == PL_NUM) return c->v.num[t->nrows];
  if (c->type == PL_STR) return NAN;
  return (double)c->v.i64[t->nrows];
}

static void snake(const char *s, size_t n, const char *base, pl_buf *out) {
  out->len = 0;
  int us = 1;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '#') {
      pl_buf_adds(out, us ? "num" : "_num");
      us = 0;
      continue;
    }
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      pl_buf_addc(out, (char)c);
      us = 0;
    } else if (c >= 'A' && c <= 'Z') {
      pl_buf_addc(out, (char)(c - 'A' + 'a'));
      us = 0;
    } else if (!us) {
      pl_buf_addc(out, '_');
      us = 1;
    }
  }
  while (out->len && out->data[out->len - 1] == '_') out->len--;
  if (out->len == 0) pl_buf_adds(out, "metric");
  const char *suf = NULL;
  if (base) {
    if (strcmp(base, "ns") == 0) suf = "_ns";
    else if (strcmp(base, "byte") == 0 || strcmp(base, "byte/block") == 0) suf = "_bytes";
    else if (strcmp(base, "Hz") == 0) suf = "_hz";
    else if (strcmp(base, "pct") == 0) suf = "_pct";
    else if (strcmp(base, "byte/s") == 0) suf = "_bytes_per_s";
  }
  if (suf) {
    size_t k = strlen(suf);
    if (out->len < k || memcmp(out->data + out->len - k, suf, k) != 0) pl_buf_adds(out, suf);
  }
  pl_buf_cstr(out);
}

/* The kernel column for a metric of class cls (creating an automatic one
** for unknown Launch / Occupancy / SOL metrics); -1 when none. */
static int kernel_col(ncu_builder *b, int cls, uint32_t id, const char *metric, size_t nm, const char *base, int is_num,
                      int *numeric) {
  if (id >= b->ncolmap[cls]) {
    size_t nn = b->ncolmap[cls] ? b->ncolmap[cls] : 64;
    while (nn <= id) nn *= 2;
    b->colmap[cls] = pl_xrealloc(b->colmap[cls], nn * sizeof(int));
    for (size_t i = b->ncolmap[cls]; i < nn; i++) b->colmap[cls][i] = -2; /* -2: not looked up */
    b->ncolmap[cls] = nn;
  }
  int e = b->colmap[cls][id];
  if (e == -2) {
    int num = 0, c = -1;
    const char *name = pl_ncu_canonical(cls, metric, nm, &num);
    if (name) {
      c = pl_table_col(b->k, name);
      if (c < 0) c = pl_table_add_col(b->k, name, num ? PL_NUM : PL_STR);
    } else if (cls == NCU_SEC_SOL || cls == NCU_SEC_LAUNCH || cls == NCU_SEC_OCC) {
      snake(metric, nm, base, &b->tmp);
      c = pl_table_col(b->k, b->tmp.data);
      if (c < 0) {
        c = pl_table_add_col(b->k, b->tmp.data, is_num ? PL_NUM : PL_STR);
        if (c >= 0) {
          pl_buf d;
          pl_buf_init(&d);
          pl_buf_printf(&d, "'%.*s' (%s)%s%s", (int)nm, metric,
                        cls == NCU_SEC_SOL      ? "GPU Speed Of Light"
                        : cls == NCU_SEC_LAUNCH ? "Launch Statistics"
                                                : "Occupancy",
                        base && *base ? ", " : "", base ? base : "");
          pl_table_set_doc(b->k, c, pl_buf_cstr(&d));
          pl_buf_free(&d);
        }
      }
    }
    e = c < 0 ? -1 : c * 2 + (name && num ? 1 : 0);
    b->colmap[cls][id] = e;
  }
  if (e < 0) {
    *numeric = 0;
    return -1;
  }
  *numeric = e & 1;
  return e >> 1;
}

/* The unit's factor and base, through the cache of unit spellings; returns
** the cache slot, or -1 when the spelling is too long to be cached. */
static int unit_resolve(ncu_builder *b, const char *unit, size_t nu, pl_unit *u, int *known) {
  if (nu < sizeof b->ucache[0].s) {
    unsigned h = 2166136261u;
    for (size_t i = 0; i < nu; i++) h = (h ^ (unsigned char)unit[i]) * 16777619u;
    h = (h ^ (h >> 15)) & 63u;
    if (b->ucache[h].n == nu && memcmp(b->ucache[h].s, unit, nu) == 0) {
      *known = b->ucache[h].known;
      *u = b->ucache[h].u;
    } else {
      *known = pl_unit_lookup(unit, nu, u) == 0;
      memcpy(b->ucache[h].s, unit, nu);
      b->ucache[h].n = (uint8_t)nu;
      b->ucache[h].known = (uint8_t)*known;
      b->ucache[h].u = *u;
      b->ucache[h].unit_id = b->ucache[h].base_id = 0;
    }
    return (int)h;
  }
  *known = pl_unit_lookup(unit, nu, u) == 0;
  return -1;
}

/* The id of s[0..n) in t's pool for column col of the row being added: the
** row above's id when the text is the same (no hashing), else interned. */
static inline uint32_t str_id(pl_table *t, int col, size_t nrow, const char *s, size_t n) {
  if (nrow > 0) {
    uint32_t prev = t->cols[col]->v.str[nrow - 1];
    size_t ln;
    const char *ps = prev ? pl_pool_str(t->pool, prev, &ln) : NULL;
    if (ps && ln == n && memcmp(ps, s, n) == 0) return prev;
  }
  return pl_pool_intern(t->pool, s, n);
}

/* The cache entry of a value text of up to 8 bytes, and its key. */
static inline struct ncu_rawc *raw_slot(ncu_builder *b, const char *s, size_t n, uint64_t *keyp) {
  uint64_t key = 0;
  if (n >= 4) {
    uint32_t a, z;
    memcpy(&a, s, 4);
    memcpy(&z, s + n - 4, 4);
    key = (uint64_t)a | (uint64_t)z << ((n - 4) * 8);
  } else {
    for (size_t i = 0; i < n; i++) key |= (uint64_t)(unsigned char)s[i] << (i * 8);
  }
  if (b->rawc == NULL) b->rawc = pl_xcalloc(NCU_RAWC, sizeof *b->rawc);
  uint64_t h = (key ^ (uint64_t)n << 61) * 0x9e3779b97f4a7c15ull;
  *keyp = key;
  return &b->rawc[h >> (64 - NCU_RAWC_BITS)];
}

/* The id of a metric's value text in the metrics pool. */
static inline uint32_t raw_id(ncu_builder *b, const char *s, size_t n) {
  if (n > 8) return pl_pool_intern(b->m->pool, s, n);
  uint64_t key;
  struct ncu_rawc *e = raw_slot(b, s, n, &key);
  if (e->n == n && e->key == key) return e->id;
  e->key = key;
  e->n = (uint32_t)n;
  return e->id = pl_pool_intern(b->m->pool, s, n);
}

/* A pending value text: its cache entry is looked at; a miss is hashed
** and its pool slot starts loading. */
static inline void raw_stage1(ncu_builder *b, struct ncu_praw *q) {
  struct ncu_rawc *e = q->e;
  if (e && e->n == q->n && e->key == q->rk) {
    q->id = e->id;
    q->stage = 2;
    return;
  }
  q->tag = pl_pool_key(q->s, q->n, &q->key);
  pl_pool_prefetch_tag(b->m->pool, q->tag);
  q->stage = 1;
}

/* Interns the oldest pending value text. */
static inline void raw_flush1(ncu_builder *b) {
  struct ncu_praw *q = &b->pend[b->phead];
  if (q->stage == 0) raw_stage1(b, q);
  uint32_t id = q->id;
  if (q->stage == 1) {
    id = pl_pool_intern_key(b->m->pool, q->s, q->n, q->tag, q->key);
    if (q->e) {
      q->e->key = q->rk;
      q->e->n = (uint32_t)q->n;
      q->e->id = id;
    }
  }
  b->m->cols[b->m_raw]->v.str[q->row] = id;
  b->phead = (b->phead + 1) & (NCU_PEND - 1);
  b->npend--;
}

/* Interns every pending value text (before anything else goes into the metrics pool). */
static inline void raw_flush(ncu_builder *b) {
  while (b->npend) raw_flush1(b);
}

/* Queues the value text of metrics row `row`. */
static inline void raw_defer(ncu_builder *b, const char *s, size_t n, size_t row) {
  if (b->npend == NCU_PEND) raw_flush1(b);
  struct ncu_praw *q = &b->pend[(b->phead + b->npend++) & (NCU_PEND - 1)];
  q->s = s;
  q->n = n;
  q->row = row;
  q->stage = 0;
  q->id = 0;
  if (n <= 8) {
    q->e = raw_slot(b, s, n, &q->rk);
#if defined(__GNUC__)
    __builtin_prefetch(q->e);
#endif
  } else {
    q->e = NULL;
    q->rk = 0;
    raw_stage1(b, q);
  }
  /* the one queued NCU_PEND / 2 rows ago: its cache entry has loaded */
  if (b->npend > NCU_PEND / 2) {
    struct ncu_praw *o = &b->pend[(b->phead + b->npend - 1 - NCU_PEND / 2) & (NCU_PEND - 1)];
    if (o->stage == 0) raw_stage1(b, o);
  }
}

/* Metrics row `row` (the next one, room reserved and populated), whole. */
static inline void m_put_row(ncu_builder *b, size_t row, uint32_t sid, uint32_t mid, uint32_t uid, uint32_t bid,
                             double v, uint32_t rid) {
  pl_table *m = b->m;
  pl_column **cols = m->cols;
  cols[b->m_kid]->v.i64[row] = b->nkernels;
  cols[b->m_sec]->v.str[row] = sid;
  cols[b->m_metric]->v.str[row] = mid;
  cols[b->m_unit]->v.str[row] = uid;
  cols[b->m_base]->v.str[row] = bid;
  cols[b->m_value]->v.num[row] = v;
  cols[b->m_raw]->v.str[row] = rid;
  cols[b->m_kid]->len = cols[b->m_sec]->len = cols[b->m_metric]->len = cols[b->m_unit]->len = cols[b->m_base]->len =
      cols[b->m_value]->len = cols[b->m_raw]->len = row + 1;
  m->nrows = row + 1;
}

/* A number in kernel column c of the open launch: pl_row_put_num, with its
** common case inline (a number column whose next cell is the row's). */
static inline void k_put_num(ncu_builder *b, int c, double v) {
  pl_table *kt = b->k;
  pl_column *col = kt->cols[c];
  if (col->type == PL_NUM && col->len == kt->nrows && col->len < col->cap) {
    kt->rowopen = 1;
    col->v.num[col->len++] = v;
  } else pl_row_put_num(kt, c, v);
}

void pl_ncu_b_flush(ncu_builder *b) { raw_flush(b); }

/* The metrics rows just ahead populated (pl_table_populate), within what
** the columns have reserved. */
static void m_prefault(ncu_builder *b, size_t row) {
  size_t to = row + 65536;
  if (to > b->m_room) to = b->m_room;
  b->m_faulted = to;
  if (pl_table_populate(b->m, row, to) != 0) b->m_nofault = 1;
}

void pl_ncu_mkey_init(ncu_mkey *k) {
  memset(k, 0, sizeof *k);
  k->kc = -2;
}

int pl_ncu_b_metric(ncu_builder *b, const char *sec, size_t nsec, int cls, const char *metric, size_t nm,
                    const char *unit, size_t nu, const char *val, size_t nv, size_t line, size_t vcol, pl_err *err) {
  ncu_mkey k;
  pl_ncu_mkey_init(&k);
  return pl_ncu_b_metric_k(b, &k, sec, nsec, NULL, cls, metric, nm, unit, nu, val, nv, line, vcol, err);
}

/* One value of pl_ncu_b_metric_k: its arguments, and what is read from them. */
typedef struct mput {
  const char *sec, *metric, *unit, *val;
  size_t nsec, nm, nu, nv;
  uint32_t *sec_id;
  int uslot; /* the unit's cache slot, when looked up here (else -1) */
  double v;  /* the number, scaled to the unit's base */
  int is_num, na;
  int flagged; /* "(!) 12.5": a number ncu marks as doubtful (its text is kept) */
} mput;

/* A key's first value: its unit, name id and whether it counts bytes. */
static void key_ready(ncu_builder *b, ncu_mkey *k, mput *mp) {
  k->u.factor = 1;
  k->u.base = NULL;
  k->known = 0;
  if (mp->nu) mp->uslot = unit_resolve(b, mp->unit, mp->nu, &k->u, &k->known);
  k->nid = pl_pool_intern(b->names, mp->metric, mp->nm);
  k->bytes = k->known && (strcmp(k->u.base, "byte") == 0 || strcmp(k->u.base, "byte/block") == 0);
  k->ready = 1;
}

/* The value's text as a number in the unit's base, "n/a", "not collected"
** or a flagged number. */
static void read_value(ncu_builder *b, const pl_unit *u, mput *mp) {
  const char *val = mp->val;
  size_t nv = mp->nv;
  mp->v = NAN;
  mp->is_num = 0;
  mp->flagged = 0;
  if (nv > 0) {
    if (pl_parse_plain(val, nv, &mp->v) || (!b->locale && pl_parse_grouped(val, nv, &mp->v)) ||
        pl_ncu_parse_value(val, nv, &b->locale, &mp->v) == 0) {
      mp->is_num = 1;
      mp->v = pl_unit_scale(mp->v, u->factor);
    } else mp->v = NAN;
  }
  mp->na = !mp->is_num && (nv == 0 || eqn(val, nv, "n/a") || eqn(val, nv, "N/A"));
  if (!mp->is_num && !mp->na && pl_ncu_not_collected(val, nv)) {
    mp->na = 1;
    b->nmissing++;
  } else if (!mp->is_num && !mp->na && nv > 4 && memcmp(val, "(!) ", 4) == 0 &&
             pl_ncu_parse_value(val + 4, nv - 4, &b->locale, &mp->v) == 0 && isfinite(mp->v)) {
    mp->is_num = 1;
    mp->flagged = 1;
    mp->v = pl_unit_scale(mp->v, u->factor);
  }
}

/* The metrics table's section id of the value's row (row: for a section
** held per row). */
static uint32_t metric_sec_id(ncu_builder *b, const mput *mp, size_t row) {
  pl_table *m = b->m;
  if (!mp->nsec) return 0;
  if (!mp->sec_id) {
    raw_flush(b);
    return str_id(m, b->m_sec, row, mp->sec, mp->nsec);
  }
  if (*mp->sec_id == 0) {
    raw_flush(b);
    *mp->sec_id = pl_pool_intern(m->pool, mp->sec, mp->nsec);
  }
  return *mp->sec_id;
}

/* The metrics table's id of the metric name: metric names repeat on every
** launch, their ids are kept (in the key and by name id). */
static uint32_t metric_name_id(ncu_builder *b, ncu_mkey *k, const mput *mp) {
  if (k->mid) return k->mid;
  uint32_t nid = k->nid;
  if (nid >= b->nmid) {
    size_t nn = b->nmid ? b->nmid : 256;
    while (nn <= nid) nn *= 2;
    b->mid = pl_xrealloc(b->mid, nn * sizeof *b->mid);
    memset(b->mid + b->nmid, 0, (nn - b->nmid) * sizeof *b->mid);
    b->nmid = nn;
  }
  if (b->mid[nid] == 0) {
    raw_flush(b);
    b->mid[nid] = pl_pool_intern(b->m->pool, mp->metric, mp->nm);
  }
  return k->mid = b->mid[nid];
}

/* The metrics table's ids of the unit and of its base (kept in the key and
** in the unit cache). */
static void metric_unit_ids(ncu_builder *b, ncu_mkey *k, mput *mp, uint32_t *uid, uint32_t *bid) {
  *uid = k->unit_id;
  *bid = k->base_id;
  if (*uid) return;
  if (mp->uslot < 0 && mp->nu < sizeof b->ucache[0].s) {
    pl_unit u2;
    int kn2;
    mp->uslot = unit_resolve(b, mp->unit, mp->nu, &u2, &kn2);
  }
  int slot = mp->uslot;
  *uid = slot >= 0 ? b->ucache[slot].unit_id : 0;
  *bid = slot >= 0 ? b->ucache[slot].base_id : 0;
  if (!*uid) {
    raw_flush(b);
    *uid = pl_pool_intern(b->m->pool, mp->unit, mp->nu);
    *bid = k->known ? pl_pool_intern(b->m->pool, k->u.base, strlen(k->u.base)) : *uid;
    if (slot >= 0) {
      b->ucache[slot].unit_id = *uid;
      b->ucache[slot].base_id = *bid;
    }
  }
  k->unit_id = *uid;
  k->base_id = *bid;
}

/* The value's row of the metrics table. */
static void metric_row(ncu_builder *b, ncu_mkey *k, mput *mp) {
  pl_table *m = b->m;
  size_t row = m->nrows;
  uint32_t sid = metric_sec_id(b, mp, row); /* the section, then the name: the pool's order as before */
  uint32_t mid = metric_name_id(b, k, mp), uid = 0, bid = 0, rid = 0;
  if (mp->nu) metric_unit_ids(b, k, mp, &uid, &bid);
  /* the printed text of a number says nothing value does not (but its
  ** digits and separators): kept only when asked (raw_text) */
  int keep = mp->nv && (!mp->is_num || b->raw_all || mp->flagged);
  if (!m->rowopen && m->ncols == 7) {
    if (keep && !b->defer_raw) {
      raw_flush(b);
      rid = raw_id(b, mp->val, mp->nv);
    } else if (keep) {
      /* resolved while the next rows are read (raw_defer) */
      raw_defer(b, mp->val, mp->nv, row);
    }
    /* the metrics table gets whole rows only from here: append them */
    pl_column **cols = m->cols;
    if (row >= b->m_room) {
      pl_table_reserve(m, row + 1);
      size_t room = SIZE_MAX;
      for (size_t i = 0; i < m->ncols; i++)
        if (cols[i]->cap < room) room = cols[i]->cap;
      b->m_room = room;
    }
    if (row >= b->m_faulted && !b->m_nofault) m_prefault(b, row);
    m_put_row(b, row, sid, mid, uid, bid, mp->is_num ? mp->v : NAN, rid);
    return;
  }
  raw_flush(b);
  if (keep) rid = raw_id(b, mp->val, mp->nv);
  pl_row_put_int(m, b->m_kid, b->nkernels);
  if (mp->nsec) pl_row_put_strid(m, b->m_sec, sid);
  pl_row_put_strid(m, b->m_metric, mid);
  if (mp->nu) {
    pl_row_put_strid(m, b->m_unit, uid);
    pl_row_put_strid(m, b->m_base, bid);
  }
  if (mp->is_num) pl_row_put_num(m, b->m_value, mp->v);
  if (keep) pl_row_put_strid(m, b->m_raw, rid);
  pl_row_end(m);
}

/* The value in its column c of the kernels table (and the SM count). */
static void kernel_cell(ncu_builder *b, ncu_mkey *k, int c, const mput *mp, size_t line) {
  pl_column *col = b->k->cols[c];
  double v = mp->v;
  if (col->type == PL_STR) {
    pl_row_put_str(b->k, c, mp->val, mp->nv);
  } else if (mp->is_num) {
    if (k->bytes) v = snap_bytes(v, k->u.factor, mp->val, mp->nv);
    k_put_num(b, c, v);
  } else {
    pl_profile_diag(b->p, line, "kernel column '%s' is numeric; text value '%.*s' of '%.*s' kept in metrics only",
                    col->name, (int)mp->nv, mp->val, (int)mp->nm, mp->metric);
  }
  if (k->is_sm && mp->is_num && b->sm_count_source == NULL) {
    b->sm_count = v;
    b->sm_count_source = "metric (# SMs / device__attribute_multiprocessor_count)";
  }
}

int pl_ncu_b_metric_k(ncu_builder *b, ncu_mkey *k, const char *sec, size_t nsec, uint32_t *sec_id, int cls,
                      const char *metric, size_t nm, const char *unit, size_t nu, const char *val, size_t nv,
                      size_t line, size_t vcol, pl_err *err) {
  mput mp = { sec, metric, unit, val, nsec, nm, nu, nv, sec_id, -1, NAN, 0, 0, 0 };
  if (!k->ready) key_ready(b, k, &mp);
  const pl_unit u = k->u;
  const char *base = nu ? (k->known ? u.base : NULL) : "";
  read_value(b, &u, &mp);
  int must = 0;
  int c = -1;
  if (cls != NCU_SEC_OTHER) {
    if (k->kc == -2) {
      c = kernel_col(b, cls, k->nid, metric, nm, base, mp.is_num, &must);
      k->kc = c;
      k->must = must;
      k->is_sm = c >= 0 && strcmp(b->k->cols[c]->name, "sm_count") == 0;
    } else {
      c = k->kc;
      must = k->must;
    }
  }
  if (!mp.is_num && !mp.na && (must || nu > 0)) {
    b->tmp.len = 0;
    pl_buf_printf(&b->tmp, "a number for '%.*s'%s%.*s%s", (int)nm, metric, nu ? " (unit '" : "", (int)nu, unit,
                  nu ? "')" : "");
    return pl_err_expected(err, line, vcol, pl_buf_cstr(&b->tmp), val, nv);
  }
  if (b->want_m) metric_row(b, k, &mp);
  if (c >= 0 && !mp.na) kernel_cell(b, k, c, &mp, line);
  /* what pl_ncu_b_metric_fast needs to add the next number of this key */
  if (mp.is_num && !k->fast) {
    int ok = 1;
    if (b->want_m) ok = (nsec == 0 || (sec_id && *sec_id)) && k->mid && (nu == 0 || k->unit_id);
    if (c >= 0) ok = ok && b->k->cols[c]->type == PL_NUM && !k->is_sm;
    if (ok) {
      k->fast = 1;
      k->fkc = c;
      k->fsid = nsec && sec_id ? *sec_id : 0;
    }
  }
  return 0;
}

int pl_ncu_b_metric_fast(ncu_builder *b, const ncu_mkey *k, const char *val, size_t nv) {
  double v;
  if (!k->fast || nv == 0) return 0;
  if (!(pl_parse_plain(val, nv, &v) || (!b->locale && pl_parse_grouped(val, nv, &v)))) return 0;
  v = pl_unit_scale(v, k->u.factor);
  if (b->want_m) {
    pl_table *m = b->m;
    size_t row = m->nrows;
    if (m->rowopen || m->ncols != 7 || row >= b->m_room || (b->raw_all && !b->defer_raw)) return 0;
    if (row >= b->m_faulted && !b->m_nofault) m_prefault(b, row);
    if (b->raw_all) raw_defer(b, val, nv, row);
    m_put_row(b, row, k->fsid, k->mid, k->unit_id, k->base_id, v, 0);
  }
  if (k->fkc >= 0) {
    if (k->bytes) v = snap_bytes(v, k->u.factor, val, nv);
    k_put_num(b, k->fkc, v);
  }
  return 1;
}

size_t pl_ncu_speedup_prefix(const char *s, size_t n, double *est, double *est_local) {
  static const struct {
    const char *w;
    size_t n;
    int local;
  } pre[] = {
    { "Est. Speedup:", 13, 0 },       { "Estimated Speedup:", 18, 0 },       { "Est. Global Speedup:", 20, 0 },
    { "Est. Local Speedup:", 19, 1 }, { "Estimated Local Speedup:", 24, 1 },
  };
  size_t i = 0, used = 0;
  for (;;) {
    while (i < n && s[i] == ' ') i++;
    size_t k;
    int hit = -1;
    if (n - i < 13 || s[i] != 'E' || s[i + 1] != 's' || s[i + 2] != 't') break;
    for (k = 0; k < sizeof pre / sizeof pre[0]; k++)
      if (n - i >= pre[k].n && memcmp(s + i, pre[k].w, pre[k].n) == 0) {
        hit = (int)k;
        break;
      }
    if (hit < 0) break;
    size_t j = i + pre[hit].n;
    while (j < n && s[j] == ' ') j++;
    size_t st = j;
    while (j < n && s[j] != '%' && s[j] != ' ') j++;
    double v;
    if (pl_parse_double(s + st, j - st, &v) != 0) break;
    if (j < n && s[j] == '%') j++;
    if (pre[hit].local) *est_local = v;
    else *est = v;
    i = j;
    used = j;
  }
  return used;
}

void pl_ncu_b_scan_rule_text(ncu_builder *b, const char *msg, size_t n) {
  if (b->sm_count_source) return;
  const char *q = pl_find(msg, n, "GPU's ");
  if (q == NULL) return;
  const char *e = msg + n;
  q += 6;
  double v = 0;
  const char *d = q;
  while (d < e && *d >= '0' && *d <= '9') {
    v = v * 10 + (*d - '0');
    d++;
  }
  if (d == q || !pl_starts(d, (size_t)(e - d), " multiprocessors")) return;
  b->sm_count = v;
  b->sm_count_source = "rule text (\"GPU's N multiprocessors\")";
}

void pl_ncu_b_rule(ncu_builder *b, const char *sec, size_t nsec, const char *name, size_t nname, const char *sev,
                   size_t nsev, const char *msg, size_t nmsg, double est, double est_local, size_t line) {
  pl_ncu_b_scan_rule_text(b, msg, nmsg);
  if (!b->want_r) return;
  pl_table *r = b->r;
  pl_row_put_int(r, b->r_kid, b->nkernels);
  if (nsec) pl_row_put_str(r, b->r_sec, sec, nsec);
  if (nname) pl_row_put_str(r, b->r_name, name, nname);
  pl_row_put_str(r, b->r_sev, sev, nsev);
  pl_row_put_str(r, b->r_msg, msg, nmsg);
  if (!isnan(est)) pl_row_put_num(r, b->r_est, est);
  if (!isnan(est_local)) pl_row_put_num(r, b->r_estl, est_local);
  if (line) pl_row_put_int(r, b->r_line, (int64_t)line);
  pl_row_end(r);
}

void pl_ncu_b_end(ncu_builder *b) {
  if (!b->open) return;
  pl_table *k = b->k;
  pl_row_put_int(k, b->k_nsec, b->nsections);
  pl_row_put_int(k, b->k_nmiss, b->nmissing);
  /* dims <-> sizes */
  if (row_has(k, b->k_gx) && row_has(k, b->k_gy) && row_has(k, b->k_gz)) {
    if (!row_has(k, b->k_grid))
      pl_row_put_num(k, b->k_grid, row_num(k, b->k_gx) * row_num(k, b->k_gy) * row_num(k, b->k_gz));
  } else if (row_has(k, b->k_grid)) {
    double g = row_num(k, b->k_grid);
    if (!row_has(k, b->k_gx)) pl_row_put_int(k, b->k_gx, pl_int_of(g));
    if (!row_has(k, b->k_gy)) pl_row_put_int(k, b->k_gy, 1);
    if (!row_has(k, b->k_gz)) pl_row_put_int(k, b->k_gz, 1);
  }
  if (row_has(k, b->k_bx) && row_has(k, b->k_by) && row_has(k, b->k_bz)) {
    if (!row_has(k, b->k_block))
      pl_row_put_num(k, b->k_block, row_num(k, b->k_bx) * row_num(k, b->k_by) * row_num(k, b->k_bz));
  } else if (row_has(k, b->k_block)) {
    double g = row_num(k, b->k_block);
    if (!row_has(k, b->k_bx)) pl_row_put_int(k, b->k_bx, pl_int_of(g));
    if (!row_has(k, b->k_by)) pl_row_put_int(k, b->k_by, 1);
    if (!row_has(k, b->k_bz)) pl_row_put_int(k, b->k_bz, 1);
  }
  /* SM count from waves: waves = grid / (sms * blocks_per_sm), printed with
  ** 2 decimals; accepted only when the rounding leaves one integer. */
  if (b->sm_count_waves == 0) {
    double grid = row_num(k, b->k_grid), block = row_num(k, b->k_block);
    double waves = row_num(k, pl_table_col(k, "waves_per_sm"));
    double tw = row_num(k, pl_table_col(k, "theoretical_warps"));
    if (grid > 0 && block > 0 && waves > 0 && tw > 0) {
      double wpb = ceil(block / 32);
      double bps = floor(tw / wpb + 1e-9);
      if (bps >= 1) {
        double lo = grid / (bps * (waves + 0.005)), hi = grid / (bps * (waves - 0.005));
        if (waves - 0.005 <= 0) hi = INFINITY;
        double n = ceil(lo - 1e-9);
        if (n <= hi + 1e-9 && n + 1 > hi + 1e-9 && n >= 1) b->sm_count_waves = n;
      }
    }
  }
  pl_row_end(k);
  b->open = 0;
  b->nkernels++;
}

void pl_ncu_b_launch_error(ncu_builder *b, const char *msg, size_t n) {
  if (!b->open || n == 0) return;
  pl_row_put_str(b->k, b->k_err, msg, n);
}

void pl_ncu_b_output(ncu_builder *b, size_t line, const char *s, size_t n) {
  if (!b->want_po) return;
  pl_row_put_int(b->po, b->po_line, (int64_t)line);
  pl_row_put_str(b->po, b->po_text, s, n);
  pl_row_end(b->po);
}

void pl_ncu_b_finish(ncu_builder *b) {
  raw_flush(b);
  if (b->open) pl_ncu_b_end(b);
  pl_profile *p = b->p;
  pl_profile_meta_str(p, "tool", "Nsight Compute", 14);
  if (b->cc[0]) pl_profile_meta_str(p, "cc", b->cc, strlen(b->cc));
  if (b->sm_count_source) {
    pl_profile_meta_num(p, "sm_count", b->sm_count);
    pl_profile_meta_str(p, "sm_count_source", b->sm_count_source, strlen(b->sm_count_source));
  } else if (b->sm_count_waves > 0) {
    pl_profile_meta_num(p, "sm_count", b->sm_count_waves);
    const char *s = "inferred from Waves Per SM, Grid Size and theoretical warps";
    pl_profile_meta_str(p, "sm_count_source", s, strlen(s));
  }
  pl_profile_meta_num(p, "launches", (double)b->nkernels);
  if (b->locale) pl_profile_meta_str(p, "number_format", "locale (space groups, decimal comma)", 36);
  pl_table **ts[4] = { &b->k, &b->m, &b->r, &b->po };
  int want[4] = { b->want_k, b->want_m, b->want_r, b->want_po };
  for (int i = 0; i < 4; i++) {
    if (want[i]) pl_profile_add_table(p, *ts[i]);
    else pl_table_free(*ts[i]);
    *ts[i] = NULL;
  }
  pl_ncu_b_free(b);
}

/* ---- several threads ---------------------------------------------------- */

/* The id in b's kernels pool of b's process name, from its open launch or
** else its last one (0 when that launch had another, or there is none). */
static uint32_t process_id(const ncu_builder *b) {
  const pl_table *k = b->k;
  size_t row = b->open ? k->nrows : k->nrows - 1;
  if ((!b->open && k->nrows == 0) || b->process[0] == '\0') return 0;
  const pl_column *c = k->cols[b->k_proc];
  if (c->type != PL_STR || c->len <= row) return 0;
  uint32_t id = c->v.str[row];
  size_t n;
  const char *s = id ? pl_pool_str(k->pool, id, &n) : NULL;
  return s && n == strlen(b->process) && memcmp(s, b->process, n) == 0 ? id : 0;
}

/* Launches of w read before its first process line: b's process goes into them. */
static int64_t w_unnamed(const ncu_builder *w) { return w->seen_process ? w->before_process : w->nkernels; }

int pl_ncu_b_merge_fits(const ncu_builder *b, const ncu_builder *w) {
  if (b->locale || w->open || w->range || w->npend) return 0;
  if (w_unnamed(w) > 0 && b->process[0] && process_id(b) == 0) return 0;
  if (b->k->cols[b->k_proc]->type != PL_STR || b->k->cols[b->k_pid]->type != PL_INT) return 0;
  return pl_par_append_fits(b->k, w->k) && pl_par_append_fits(b->m, w->m) && pl_par_append_fits(b->r, w->r) &&
         pl_par_append_fits(b->po, w->po);
}

static void append_table(pl_table *d, const pl_table *src, int kid, int64_t koff, int line, int64_t loff) {
  size_t n0 = d->nrows;
  uint32_t *map = pl_par_pool_map(d->pool, src->pool);
  pl_par_append_named(d, src, map);
  free(map);
  if (kid >= 0) pl_par_offset_ints(d, kid, n0, koff);
  if (line >= 0) pl_par_offset_ints(d, line, n0, loff);
}

void pl_ncu_b_merge(ncu_builder *b, ncu_builder *w, size_t line_off) {
  uint32_t pid_name = process_id(b);
  if (b->open) pl_ncu_b_end(b);
  pl_ncu_b_flush(b);
  int64_t koff = b->nkernels;
  size_t k0 = b->k->nrows;
  append_table(b->k, w->k, b->k_id, koff, b->k_line, (int64_t)line_off);
  append_table(b->m, w->m, b->m_kid, koff, -1, 0);
  append_table(b->r, w->r, b->r_kid, koff, b->r_line, (int64_t)line_off);
  append_table(b->po, w->po, -1, 0, b->po_line, (int64_t)line_off);
  /* w's launches before its first process line: b's process, as b would have put it */
  int64_t un = w_unnamed(w);
  for (int64_t i = 0; i < un; i++) {
    size_t r = k0 + (size_t)i;
    if (pid_name) b->k->cols[b->k_proc]->v.str[r] = pid_name;
    if (b->pid != PL_INT_NA) b->k->cols[b->k_pid]->v.i64[r] = b->pid;
  }
  b->nkernels += w->nkernels;
  b->locale = w->locale;
  if (w->seen_process) {
    memcpy(b->process, w->process, sizeof b->process);
    b->pid = w->pid;
    if (!b->seen_process) {
      b->seen_process = 1;
      b->before_process = koff + w->before_process;
    }
  }
  if (b->cc[0] == '\0') memcpy(b->cc, w->cc, sizeof b->cc);
  if (b->sm_count_source == NULL && w->sm_count_source) {
    b->sm_count = w->sm_count;
    b->sm_count_source = w->sm_count_source;
  }
  if (b->sm_count_waves == 0) b->sm_count_waves = w->sm_count_waves;
}

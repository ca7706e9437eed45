/*
** fmt_kernel_table.c -- format "kernel-table": a per-kernel latency table,
**
**   Kernel                                   Latency Tensor   DRAM
**   elementwise_kernel_with_index       |       4160   0.00   0.00
**
** one row per kernel launch: NAME | LATENCY TENSOR DRAM.  Latency is in
** nanoseconds; Tensor and DRAM are utilisation fractions 0..1 as the tool
** gives them (kept as given).  A name the tool cut is marked with "...".
** Blank lines are skipped; anything else that is not a row is an error.
*/
#include "format.h"
#include "names.h"
#include "par.h"
#include "scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_header(const char *s, size_t n) {
  pl_trim(&s, &n);
  if (!pl_starts(s, n, "Kernel")) return 0;
  return pl_find(s, n, "Latency") != NULL && pl_find(s, n, "Tensor") != NULL && pl_find(s, n, "DRAM") != NULL;
}

static int kt_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  int rows = 0, seen = 0;
  while (pl_lines_next(&c, &l) && seen < 20) {
    if (pl_is_blank(l.s, l.n)) continue;
    if (seen == 0 && is_header(l.s, l.n)) return 90;
    seen++;
    const char *bar = memchr(l.s, '|', l.n);
    if (bar && memchr(bar + 1, '|', l.n - (size_t)(bar + 1 - l.s)) == NULL) rows++;
  }
  return rows >= 3 && rows == seen ? 40 : 0;
}

/* Reads the next whitespace-separated token starting at *i. */
static int next_token(const char *s, size_t n, size_t *i, size_t *start, size_t *len) {
  while (*i < n && (s[*i] == ' ' || s[*i] == '\t')) (*i)++;
  if (*i >= n) {
    *start = *i;
    *len = 0;
    return 0;
  }
  *start = *i;
  while (*i < n && s[*i] != ' ' && s[*i] != '\t') (*i)++;
  *len = *i - *start;
  return 1;
}

/* next_token and pl_parse_double in one pass: 1 with the value when the
** token is a number, 0 when there is no token or it is not a number
** (*start and *len say which). */
static inline int num_token(const char *s, size_t n, size_t *i, size_t *start, size_t *len, double *v) {
  static const double p10[9] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8 };
  size_t k = *i;
  while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
  *start = k;
  uint64_t m = 0;
  size_t dot = 0, nd = 0;
  int plain = 1;
  for (; k < n && s[k] != ' ' && s[k] != '\t'; k++) {
    unsigned d = (unsigned)(unsigned char)s[k] - '0';
    if (d < 10) {
      m = m * 10 + d;
      nd++;
    } else if (s[k] == '.' && !dot) dot = k + 1;
    else plain = 0;
  }
  *i = k;
  *len = k - *start;
  if (*len == 0) return 0;
  size_t frac = dot ? k - dot : 0;
  if (plain && nd > 0 && nd <= 15 && frac <= 8) {
    *v = frac ? (double)m / p10[frac] : (double)m;
    return 1;
  }
  return pl_parse_double(s + *start, *len, v) == 0;
}

/* Word-at-a-time scanning needs little-endian loads and GCC's ctz. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KT_SWAR   1
#define KT_CTZ(x) ((unsigned)__builtin_ctzll(x))
#else
#define KT_SWAR   0
#define KT_CTZ(x) 0u
#endif

/* The number of leading ASCII digits in the 8 bytes w (little-endian
** load order), and in *t those bytes minus '0'. */
static inline unsigned swar_digits(uint64_t w, uint64_t *t) {
  uint64_t x = w ^ 0x3030303030303030ull; /* a digit byte becomes 0..9 */
  /* high bit set in each byte that is not a digit; a carry out of a byte
  ** only disturbs the bytes above the first non-digit, which are not used */
  uint64_t nd = ((x + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
  *t = x;
  return nd ? KT_CTZ(nd) / 8 : 8;
}

/* The value of the first n (1..8) digit bytes of t (byte 0 the first). */
static inline uint64_t swar_value(uint64_t t, unsigned n) {
  t <<= 8 * (8 - n); /* leading zeros in front */
  t = (t * 10 + (t >> 8)) & 0x00FF00FF00FF00FFull;
  t = (t * 100 + (t >> 16)) & 0x0000FFFF0000FFFFull;
  t = (t * 10000 + (t >> 32)) & 0x00000000FFFFFFFFull;
  return t;
}

/* m / 10^frac for small m and frac 1..3, computed by the same division at
** the start of a parse (the utilisations "0.00" .. "1.00" are all here). */
typedef struct kt_div {
  double q[4][128];
} kt_div;
static const double kt_p10[9] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8 };
static const uint64_t kt_p10i[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
static void kt_div_init(kt_div *d) {
  for (int f = 1; f <= 3; f++)
    for (int m = 0; m < 128; m++) d->q[f][m] = (double)(uint64_t)m / kt_p10[f];
}

/* The fast row's number: at *pp (after spaces and tabs), a token that
** num_token reads as a plain number (digits, at most one '.', 1 to 15
** digits, at most 8 after the point), ending at a space, tab, '\r', '\n'
** or the end e.  1 with the value and *pp at the end; 0 otherwise. */
static inline int fast_num(const kt_div *dv, const char *e, const char **pp, double *v) {
  const char *k = *pp;
  /* columns are padded with runs of spaces: 8 at a time */
  while (KT_SWAR && e - k >= 8) {
    uint64_t w;
    memcpy(&w, k, 8);
    w ^= 0x2020202020202020ull;
    if (w == 0) {
      k += 8;
      continue;
    }
    k += KT_CTZ(w) / 8;
    break;
  }
  while (k < e && (*k == ' ' || *k == '\t')) k++;
  uint64_t m = 0;
  unsigned nd = 0, frac = 0;
  if (KT_SWAR && e - k >= 8) {
    /* up to 8 digits, the point and up to 8 more, a word at a time */
    uint64_t w, t;
    memcpy(&w, k, 8);
    nd = swar_digits(w, &t);
    if (nd == 8) return 0; /* long: the general path */
    if (nd) m = swar_value(t, nd);
    k += nd;
    if (*k == '.') { /* k < e: nd < 8 bytes were digits */
      k++;
      if (e - k >= 8) {
        memcpy(&w, k, 8);
        frac = swar_digits(w, &t);
        if (frac == 8) return 0;
        if (frac) { m = m * kt_p10i[frac] + swar_value(t, frac); }
        k += frac;
      } else {
        while (k < e && (unsigned)(unsigned char)*k - '0' < 10) {
          m = m * 10 + (unsigned)((unsigned char)*k - '0');
          frac++;
          k++;
        }
      }
    }
  } else {
    while (k < e && (unsigned)(unsigned char)*k - '0' < 10) {
      m = m * 10 + (unsigned)((unsigned char)*k - '0');
      nd++;
      k++;
    }
    if (k < e && *k == '.') {
      k++;
      while (k < e && (unsigned)(unsigned char)*k - '0' < 10) {
        m = m * 10 + (unsigned)((unsigned char)*k - '0');
        frac++;
        k++;
      }
    }
  }
  if (nd + frac == 0 || nd + frac > 15 || frac > 8) return 0;
  if (k < e && *k != ' ' && *k != '\t' && *k != '\r' && *k != '\n') return 0;
  if (frac == 0) *v = (double)m;
  else if (frac <= 3 && m < 128) *v = dv->q[frac][m];
  else *v = (double)m / kt_p10[frac];
  *pp = k;
  return 1;
}

/* a[0..n) == b[0..n), 8 bytes at a time (names are a few dozen bytes) */
static inline int same_bytes(const char *a, const char *b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    if (x != y) return 0;
  }
  for (; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}


/* Names repeat: the raw name field (the bytes before '|', padding
** included) is interned in a side pool whose ids index the trimmed name's
** id, its short name's id and its truncation flag, so trimming, short
** names and the table's own interning run once per distinct field. */
typedef struct kt_nm {
  uint32_t name, shortn;
  int trunc;
} kt_nm;
typedef struct kt_slot {
  const char *s;
  size_t n;
  uint32_t rid;
} kt_slot;

/* The side pool's id of the raw field s[0..rn), through a direct-mapped
** cache: the field is compared in full against the line that last filled
** the slot. */
static inline kt_slot *kt_slot_of(kt_slot *slot, const char *s, size_t rn) {
  uint64_t h = rn * 0x9E3779B97F4A7C15ull;
  if (rn >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h ^= w * 0xff51afd7ed558ccdull;
    memcpy(&w, s + rn - 8, 8);
    h ^= w * 0xc4ceb9fe1a85ec53ull;
    if (rn >= 24) {
      memcpy(&w, s + 16, 8);
      h ^= w * 0x94d049bb133111ebull;
    }
  } else if (rn) h ^= (unsigned char)s[0] * 0xff51afd7ed558ccdull;
  h ^= h >> 29;
  return &slot[h & 1023];
}

static inline uint32_t kt_raw_id(pl_pool *raw, kt_slot *slot, const char *s, size_t rn) {
  kt_slot *sl = kt_slot_of(slot, s, rn);
  if (sl->rid && sl->n == rn && same_bytes(sl->s, s, rn)) return sl->rid;
  uint32_t rid = pl_pool_intern(raw, s, rn);
  sl->rid = rid;
  sl->n = rn;
  sl->s = s;
  return rid;
}

static kt_nm *kt_grow(kt_nm *nm, size_t *cap_nm, uint32_t rid) {
  size_t nc = *cap_nm ? *cap_nm * 2 : 256;
  while (nc <= rid) nc *= 2;
  nm = pl_xrealloc(nm, nc * sizeof *nm);
  memset(nm + *cap_nm, 0, (nc - *cap_nm) * sizeof *nm);
  *cap_nm = nc;
  return nm;
}

/* Fills a raw field's entry; leaves name 0 when the trimmed name is empty. */
static void kt_name(pl_table *t, kt_nm *e, const char *s, size_t rn, char *shortbuf, size_t shortsz) {
  const char *name = s;
  size_t nn = rn;
  pl_trim(&name, &nn);
  if (nn == 0) return;
  size_t sn = pl_short_name(name, nn, shortbuf, shortsz);
  e->name = pl_pool_intern(t->pool, name, nn);
  e->shortn = pl_pool_intern(t->pool, shortbuf, sn);
  e->trunc = pl_name_truncated(name, nn);
}

/* Every column is set on every row: straight stores through the column
** arrays, the columns' lengths and the row count set by kt_sync (before
** the columns grow, and at the end). */
typedef struct kt_sink {
  pl_table *t;
  int col[8]; /* name short lat (dur) tensor dram trunc line */
  uint32_t *name, *shortn;
  double *lat, *ten, *dram;
  uint8_t *trunc;
  int64_t *line;
  size_t r, room; /* rows stored; rows the arrays hold */
} kt_sink;

static void kt_sync(kt_sink *k) {
  pl_table *t = k->t;
  for (size_t j = 0; j < t->ncols; j++) t->cols[j]->len = k->r;
  t->nrows = k->r;
}

/* The arrays again after they grew (or at the start). */
static void kt_load(kt_sink *k) {
  pl_column *const *cl = k->t->cols;
  k->name = cl[k->col[0]]->v.str;
  k->shortn = cl[k->col[1]]->v.str;
  k->lat = cl[k->col[2]]->v.num;
  k->ten = cl[k->col[4]]->v.num;
  k->dram = cl[k->col[5]]->v.num;
  k->trunc = cl[k->col[6]]->v.b;
  k->line = cl[k->col[7]]->v.i64;
  size_t room = SIZE_MAX;
  for (size_t j = 0; j < k->t->ncols; j++)
    if (cl[j]->cap < room) room = cl[j]->cap;
  k->room = room;
}

static inline void kt_store(kt_sink *k, const kt_nm *e, const double *v, size_t lineno) {
  if (k->r >= k->room) {
    /* room for one more row in every column (they grow together) */
    kt_sync(k);
    pl_table_reserve(k->t, k->r < 4096 ? 8192 : k->r * 2);
    kt_load(k);
  }
  size_t r = k->r++;
  k->name[r] = e->name;
  k->shortn[r] = e->shortn;
  k->lat[r] = v[0];
  k->ten[r] = v[1];
  k->dram[r] = v[2];
  k->trunc[r] = (uint8_t)(e->trunc != 0);
  k->line[r] = (int64_t)lineno;
}


/* The parse state shared by the row readers: the table and its column
** arrays (sink), the raw-name pool with its cache (slot), each raw name's
** entry (nm, by pool id), and the number reader. */
typedef struct kt_state {
  pl_table *t;
  kt_sink sink;
  pl_pool *raw;
  kt_slot *slot;
  kt_nm *nm;
  size_t cap_nm;
  kt_div dv;
  size_t last_rn; /* the width of the last fast row's name field */
  const char *end;
  char shortbuf[1024];
} kt_state;

/* The kernels table and its columns. */
static void kt_table(kt_state *x, size_t len) {
  pl_table *t = x->t = pl_table_new("kernels");
  int c_name =
      pl_table_add_doc_col(t, "name", PL_STR, "kernel name as the tool printed it (may end in '...' where it was cut)");
  int c_short = pl_table_add_doc_col(t, "short_name", PL_STR,
                                     "short name: no namespaces, template arguments, parameters or '...'");
  int c_lat = pl_table_add_doc_col(t, "latency_ns", PL_NUM, "kernel latency as the tool printed it, nanoseconds");
  int c_ten =
      pl_table_add_doc_col(t, "tensor_util", PL_NUM, "tensor-core utilisation, a fraction 0..1 as given (not percent)");
  int c_dram = pl_table_add_doc_col(t, "dram_util", PL_NUM,
                                    "DRAM bandwidth utilisation, a fraction 0..1 as given (not percent)");
  int c_trunc = pl_table_add_doc_col(t, "truncated", PL_BOOL, "true where the tool cut the name with '...'");
  int c_line = pl_table_add_doc_col(t, "line", PL_INT, NULL);
  pl_table_reserve(t, len / 80 + 16);
  kt_sink sink = {
    t, { c_name, c_short, c_lat, -1, c_ten, c_dram, c_trunc, c_line }, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0
  };
  x->sink = sink;
  kt_load(&x->sink);
}

static void kt_free(kt_state *x) {
  pl_pool_release(x->raw);
  free(x->nm);
  free(x->slot);
}

/* The fast row: 'NAME | number number number' with plain numbers and
** spaces, tabs and a line end after them; it finds the '|' and the line's
** end in one pass and stores exactly what kt_row would.  1 when it read
** the line at c->p; 0 leaves anything else (the header, blank lines,
** errors, other numbers) to the general path, which decides. */
static inline int kt_fast_row(kt_state *x, pl_lines *c) {
  const char *s0 = c->p, *end = x->end;
  /* the name field is usually as wide as the last row's: when a '|' is
  ** there and the field is one already seen (a cache hit compares it in
  ** full), it holds no other '|' and no line end */
  const char *fb = NULL;
  uint32_t rid = 0;
  size_t last_rn = x->last_rn;
  if (last_rn < (size_t)(end - s0) && s0[last_rn] == '|') {
    kt_slot *sl = kt_slot_of(x->slot, s0, last_rn);
    if (sl->rid && sl->n == last_rn && same_bytes(sl->s, s0, last_rn)) {
      fb = s0 + last_rn;
      rid = sl->rid;
    }
  }
  if (!fb) {
    fb = pl_find2(s0, (size_t)(end - s0), '|', '\n');
    if (fb && *fb == '|') rid = kt_raw_id(x->raw, x->slot, s0, (size_t)(fb - s0));
  }
  if (!rid) return 0;
  x->last_rn = last_rn = (size_t)(fb - s0);
  if (rid >= x->cap_nm) x->nm = kt_grow(x->nm, &x->cap_nm, rid);
  kt_nm *e = &x->nm[rid];
  if (e->name == 0) kt_name(x->t, e, s0, last_rn, x->shortbuf, sizeof x->shortbuf);
  const char *q = fb + 1;
  double fv[3];
  if (e->name != 0 && fast_num(&x->dv, end, &q, &fv[0]) && q < end && (*q == ' ' || *q == '\t') &&
      fast_num(&x->dv, end, &q, &fv[1]) && q < end && (*q == ' ' || *q == '\t') && fast_num(&x->dv, end, &q, &fv[2])) {
    while (q < end && (*q == ' ' || *q == '\t')) q++;
    const char *next = NULL;
    if (q == end) next = end;
    else if (*q == '\n') next = q + 1;
    else if (*q == '\r' && (q + 1 == end || q[1] == '\n')) next = q + 1 == end ? end : q + 2;
    if (next) {
      c->p = next;
      c->lineno++;
      kt_store(&x->sink, e, fv, c->lineno);
      return 1;
    }
  }
  return 0;
}

/* A row 'NAME | LATENCY TENSOR DRAM' after the header (bar: its '|').  0,
** or -1 with err set. */
static int kt_row(kt_state *x, const pl_line *l, const char *bar, size_t lineno, const pl_input *in, pl_err *err) {
  size_t rn = (size_t)(bar - l->s);
  uint32_t rid = kt_raw_id(x->raw, x->slot, l->s, rn);
  if (rid >= x->cap_nm) x->nm = kt_grow(x->nm, &x->cap_nm, rid);
  if (x->nm[rid].name == 0) {
    kt_name(x->t, &x->nm[rid], l->s, rn, x->shortbuf, sizeof x->shortbuf);
    if (x->nm[rid].name == 0) return pl_err_expected(err, lineno, 1, "a kernel name before '|'", l->s, l->n);
  }
  size_t i = (size_t)(bar - l->s) + 1, st, tl;
  double v[3];
  static const char *what[3] = { "the latency in ns (a number >= 0)", "the tensor utilisation (a number)",
                                 "the DRAM utilisation (a number)" };
  for (int k = 0; k < 3; k++) {
    if (!num_token(l->s, l->n, &i, &st, &tl, &v[k]) ||
        (k == 0 && !(isfinite(v[0]) && v[0] >= 0))) { /* a latency is a finite time >= 0 */
      /* a last line without its newline that stops early: the file was cut */
      int cut = tl == 0 && l->s + l->n == in->data + in->len;
      return pl_err_expected(err, lineno, st + 1, what[k], cut ? NULL : l->s + st, tl); /* the token */
    }
  }
  if (next_token(l->s, l->n, &i, &st, &tl))
    return pl_err_expected(err, lineno, st + 1, "end of line after the DRAM utilisation", l->s + st, tl);
  kt_store(&x->sink, &x->nm[rid], v, lineno);
  return 0;
}

/* The table handed over, with duration_ns: latency_ns itself, one buffer
** for both (8 bytes a row not stored twice). */
static void kt_finish(kt_state *x, pl_profile *p, const pl_parse_opts *o) {
  pl_table *t = x->t;
  int c_lat = x->sink.col[2];
  int c_dur = pl_table_add_alias(t, "duration_ns", c_lat, c_lat + 1);
  pl_table_set_doc(t, c_dur, "same as latency_ns: the standard duration column");
  if (pl_want_table(o, "kernels")) pl_profile_add_table(p, t);
  else pl_table_free(t);
  pl_profile_meta_str(p, "tool", "kernel latency table", strlen("kernel latency table"));
  pl_profile_meta_str(p, "time_unit", "ns", 2);
}

/* The table, the raw-name pool and caches of a reader of len bytes that
** end at end. */
static void kt_init(kt_state *x, size_t len, const char *end) {
  memset(x, 0, sizeof *x);
  kt_table(x, len);
  x->raw = pl_pool_new();
  x->slot = pl_xcalloc(1024, sizeof *x->slot);
  kt_div_init(&x->dv);
  x->end = end;
}

/* Where kt_lines polls (the main reader only): the next offset to look
** at the interrupt and report progress, and the rows whose pages are in
** (pl_table_populate; SIZE_MAX: stop asking). */
typedef struct kt_poll {
  size_t next, faulted;
} kt_poll;

/* Reads the lines of c up to stop (a line start, or c's end): 0, or -1
** with err set.  *header: the header is read.  in: the whole input; o, p
** and poll: the main reader's (--lenient, interrupt, progress), NULL on a
** worker. */
static int kt_lines(kt_state *x, pl_lines *c, const char *stop, int *header, const pl_input *in, const pl_parse_opts *o,
                    pl_profile *p, kt_poll *poll, pl_err *err) {
  pl_line l;
  while (c->p < stop) {
    if (poll && (size_t)(c->p - in->data) >= poll->next) {
      poll->next = (size_t)(c->p - in->data) + (1u << 20);
      if (o && o->interrupt && *o->interrupt) return pl_err_set(err, c->lineno + 1, 1, "interrupted");
      if (o && o->progress) o->progress(o->progress_ud, (size_t)(c->p - in->data), in->len);
      /* a megabyte of input is some 13000 rows: keep 32768 rows ahead populated */
      if (x->sink.r + 16384 > poll->faulted && poll->faulted != SIZE_MAX) {
        size_t to = x->sink.r + 32768 < x->sink.room ? x->sink.r + 32768 : x->sink.room;
        poll->faulted =
            pl_table_populate(x->t, poll->faulted > x->sink.r ? poll->faulted : x->sink.r, to) == 0 ? to : SIZE_MAX;
      }
    }
    if (*header && kt_fast_row(x, c)) continue;
    if (!pl_lines_next(c, &l)) break;
    const char *bar = l.n ? memchr(l.s, '|', l.n) : NULL;
    if (bar && *header) {
      if (kt_row(x, &l, bar, c->lineno, in, err) == 0) continue;
    } else if (pl_is_blank(l.s, l.n)) {
      continue;
    } else if (!*header) {
      if (!is_header(l.s, l.n))
        return pl_err_expected(err, c->lineno, 1, "the header 'Kernel  Latency Tensor DRAM'", l.s, l.n);
      *header = 1;
      continue;
    } else {
      size_t col = 1;
      while (col <= l.n && (l.s[col - 1] == ' ')) col++;
      pl_err_expected(err, c->lineno, col, "a row 'NAME | LATENCY TENSOR DRAM'", l.s + col - 1, l.n - (col - 1));
    }
    /* a bad row; --lenient: the row is listed in the diagnostics and skipped */
    if (pl_lenient_skip(o, p, err)) continue;
    return -1;
  }
  return 0;
}

/* ---- several threads ------------------------------------------------------
** Rows are lines and a line end is never inside a field, so the input is
** read through pl_par_body_read (par.h) in pieces cut at line starts
** (pl_parse_opts.chunk_bytes, 4 MiB by default), the first, which holds
** the header, by the main reader.  A worker reads its piece with a reader
** of its own (own table, string pool, raw-name pool; line numbers counted
** from the piece's start), with --lenient off.  The main reader appends a
** piece read without error (kt_merge: its texts re-interned in the order
** the piece met them, which is the one-thread read's: each row interns its
** name, then its short name; its line numbers moved on by the main
** reader's); a piece with a bad row, or met before the header, it reads
** itself, so that errors, diagnostics and --lenient are the one-thread
** read's. */
#define KT_CHUNK_DEFAULT (4u << 20)

/* The main reader, as the driver's callbacks see it. */
typedef struct kt_body {
  kt_state *x;
  int *header;
  const pl_input *in;
  const pl_parse_opts *o;
  pl_profile *p;
  kt_poll *poll;
  pl_err *err;
} kt_body;

static void kt_piece_free(void *piece) {
  kt_state *w = piece;
  pl_table_free(w->t);
  free(w);
}

static void *kt_piece(void *ud, const char *start, const char *lim, const char *end, const char **stop, size_t *nlines,
                      int *ended) {
  const kt_body *B = ud;
  kt_state *w = pl_xmalloc(sizeof *w);
  const char *to = pl_par_line_from(B->in->data, lim, end);
  kt_init(w, (size_t)(to - start), end);
  pl_lines c;
  pl_lines_init(&c, start, (size_t)(end - start));
  int header = 1;
  pl_err err;
  pl_err_clear(&err);
  int ok = kt_lines(w, &c, to, &header, B->in, NULL, NULL, NULL, &err) == 0;
  *stop = c.p;
  *nlines = c.lineno;
  *ended = 0;
  kt_sync(&w->sink);
  kt_free(w);
  if (ok) return w;
  kt_piece_free(w);
  return NULL;
}

static int kt_serial(void *ud, pl_lines *c, const char *upto) {
  const kt_body *B = ud;
  return kt_lines(B->x, c, pl_par_line_from(B->in->data, upto, c->end), B->header, B->in, B->o, B->p, B->poll, B->err);
}

static int kt_merge(void *ud, void *piece, size_t line_off) {
  const kt_body *B = ud;
  kt_state *x = B->x, *w = piece;
  if (!*B->header) return -1; /* its rows would be errors before the header */
  kt_sync(&x->sink);
  size_t from = x->t->nrows;
  uint32_t *map = pl_par_pool_map(x->t->pool, w->t->pool);
  pl_par_append_rows(x->t, w->t, map);
  free(map);
  pl_par_offset_ints(x->t, x->sink.col[7], from, (int64_t)line_off);
  x->sink.r = x->t->nrows;
  kt_load(&x->sink);
  return 0;
}

static const pl_par_body kt_ops = { kt_piece, kt_serial, kt_merge, kt_piece_free, NULL };

static int kt_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  kt_state x;
  const char *end = in->data + in->len;
  kt_init(&x, in->len, end);
  pl_lines c;
  pl_lines_init(&c, in->data, in->len);
  int header = 0;
  kt_poll poll = { 0, 0 };
  int jobs = pl_par_jobs(o);
  size_t chunk = o && o->chunk_bytes ? o->chunk_bytes : KT_CHUNK_DEFAULT;
  kt_body B = { &x, &header, in, o, p, &poll, err };
  int r = jobs >= 2 && in->len / 2 >= chunk ? pl_par_body_read(&kt_ops, &B, &c, jobs, chunk, o, in->len, err)
                                            : kt_lines(&x, &c, end, &header, in, o, p, &poll, err);
  kt_sync(&x.sink);
  kt_free(&x);
  if (r < 0) {
    pl_table_free(x.t);
    return -1;
  }
  if (!header) {
    pl_table_free(x.t);
    return pl_err_expected(err, c.lineno ? c.lineno : 1, 1, "the header 'Kernel  Latency Tensor DRAM'", NULL, 0);
  }
  kt_finish(&x, p, o);
  return 0;
}

const pl_format pl_fmt_kernel_table = {
  "kernel-table", "per-kernel latency tables: 'NAME | LATENCY TENSOR DRAM' rows under a header", "kernels", kt_detect,
  kt_parse,
};

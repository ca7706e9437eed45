/*
** fmt_torch_table.c -- format "torch-table": the text that PyTorch's
** `prof.key_averages().table()` prints:
**
**   -----------------  ------------  ------------  ...
**                Name    Self CPU %      Self CPU  ...   # of Calls
**   -----------------  ------------  ------------  ...
**            aten::mm        33.95%        2.485s  ...          420
**   -----------------  ------------  ------------  ...
**   Self CPU time total: 7.320s
**   Self CUDA time total: 1.870s
**
** The dash groups give the column spans: every cell is right-aligned (names
** too, in recent versions) so cell k is the text between the end of group k-1
** and the end of group k; the last column runs to the end of the line.  Column
** sets vary (CPU only; Self/total CPU and CUDA (or another device); memory;
** input shapes; source location; FLOPs); units are per cell: times us/ms/s,
** memory b/Kb/Mb/Gb (binary, as PyTorch computes them), percentages with '%'.
** Lines before the table (the program's own output) go to the diagnostics;
** the footer totals go to meta.  Several tables in one file are read in turn
** (column `table_index`).  A kernel_summary is not derived: the table mixes
** operators and kernels without saying which is which.
*/
#include "format.h"
#include "units.h"
#include "mdtable.h"
#include "names.h"
#include "scan.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TT_MAXCOLS 32

enum { K_TEXT, K_TIME, K_PCT, K_MEM, K_INT, K_FLOPS };

typedef struct ttcol {
  char hdr[64];
  char name[64];
  int kind;
  double factor;     /* FLOPs: header prefix scale */
  size_t start, end; /* span in the line: [start, end) ; end = SIZE_MAX for the last */
  int col;
  /* fast_assign_bm's tests as masks on the 64 bits from fbase (the end of
  ** the column before; 0 for the first) when [fbase, end + 2) fits (fok):
  ** fG the bits that must be spaces (the gap before the span, the two
  ** after it), fM the span */
  size_t fbase;
  uint64_t fG, fM;
  int fok;
} ttcol;

static int is_sep(const char *s, size_t n) {
  size_t dashes = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '-') dashes++;
    else if (s[i] != ' ' && s[i] != '\r' && s[i] != '\t') return 0;
  }
  return dashes >= 3;
}

static int header_like(const char *s, size_t n) {
  return pl_find(s, n, "Name") != NULL && (pl_find(s, n, "Self CPU") != NULL || pl_find(s, n, "CPU total") != NULL) &&
         (pl_find(s, n, "# of Calls") != NULL || pl_find(s, n, "Number of Calls") != NULL ||
          pl_find(s, n, "CPU time avg") != NULL);
}

static void lower_into(char *out, size_t cap, const char *s, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < cap; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) c = '_';
    out[k++] = c;
  }
  out[k] = '\0';
}

static int ends_with(const char *s, size_t n, const char *suf) {
  size_t k = strlen(suf);
  return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* Names a column from its header text. */
static void classify(ttcol *tc, const char *h, size_t n) {
  char dev[32];
  tc->factor = 1;
  snprintf(tc->hdr, sizeof tc->hdr, "%.*s", (int)n, h);
  if (n == 4 && memcmp(h, "Name", 4) == 0) {
    snprintf(tc->name, sizeof tc->name, "name");
    tc->kind = K_TEXT;
    return;
  }
  if (pl_find(h, n, "Calls")) {
    snprintf(tc->name, sizeof tc->name, "calls");
    tc->kind = K_INT;
    return;
  }
  if (n == 7 && memcmp(h, "Node ID", 7) == 0) {
    snprintf(tc->name, sizeof tc->name, "node_id");
    tc->kind = K_INT;
    return;
  }
  if (pl_starts(h, n, "Total ") && ends_with(h, n, "FLOPs")) {
    char pre = n > 11 ? h[6] : 'F';
    tc->factor = pre == 'K' ? 1e3 : pre == 'M' ? 1e6 : pre == 'G' ? 1e9 : pre == 'T' ? 1e12 : pre == 'P' ? 1e15 : 1;
    snprintf(tc->name, sizeof tc->name, "flops");
    tc->kind = K_FLOPS;
    return;
  }
  int self = pl_starts(h, n, "Self ");
  const char *d = self ? h + 5 : h;
  size_t dn = self ? n - 5 : n;
  /* DEV %, DEV, DEV total %, DEV total, DEV time avg, DEV Mem; "Self CPU total" is the old spelling of "Self CPU" */
  const char *sp = memchr(d, ' ', dn);
  size_t wl = sp ? (size_t)(sp - d) : dn;
  if (wl > 0 && wl < sizeof dev) {
    lower_into(dev, sizeof dev, d, wl);
    const char *rest = d + wl;
    size_t rn = dn - wl;
    pl_trim(&rest, &rn);
    const char *pfx = self ? "self_" : "";
    if (rn == 0) {
      snprintf(tc->name, sizeof tc->name, "%s%s_ns", pfx, dev);
      tc->kind = K_TIME;
      return;
    }
    if (rn == 1 && rest[0] == '%') {
      snprintf(tc->name, sizeof tc->name, "%s%s_pct", pfx, dev);
      tc->kind = K_PCT;
      return;
    }
    if (rn == 5 && memcmp(rest, "total", 5) == 0) {
      snprintf(tc->name, sizeof tc->name, self ? "self_%s_ns" : "%s_total_ns", dev);
      tc->kind = K_TIME;
      return;
    }
    if (rn == 7 && memcmp(rest, "total %", 7) == 0) {
      snprintf(tc->name, sizeof tc->name, self ? "self_%s_pct" : "%s_total_pct", dev);
      tc->kind = K_PCT;
      return;
    }
    if (rn == 8 && memcmp(rest, "time avg", 8) == 0) {
      snprintf(tc->name, sizeof tc->name, "%s%s_time_avg_ns", pfx, dev);
      tc->kind = K_TIME;
      return;
    }
    if (rn == 3 && memcmp(rest, "Mem", 3) == 0) {
      snprintf(tc->name, sizeof tc->name, "%s%s_mem_bytes", pfx, dev);
      tc->kind = K_MEM;
      return;
    }
  }
  tc->kind = K_TEXT;
  if (pl_md_snake(h, n, tc->name, sizeof tc->name) == 0) snprintf(tc->name, sizeof tc->name, "col");
}

/* Adds a column; when the name is taken by a column of another type (a
** header that spells one of the parser's own column names), the new column
** gets a "_2", "_3", ... suffix instead. */
static const char *kind_doc(const ttcol *tc) {
  switch (tc->kind) {
    case K_TIME: return "time, ns (printed with a unit per cell: us, ms, s)";
    case K_PCT: return "share of the self-time total, percent (NaN printed when the total is 0 -> missing)";
    case K_MEM: return "memory, bytes (printed as b, Kb, Mb, Gb or B, KB, MB, GB with 1024 steps; negative = freed)";
    case K_INT: return "count";
    case K_FLOPS: return "floating-point operations (the header's K/M/G prefix applied)";
    default: return "text as printed";
  }
}

/* Parses a cell by kind.  0 ok, 1 missing, -1 malformed. */
static int cell_value(const ttcol *tc, const char *s, size_t n, double *v) {
  pl_trim(&s, &n);
  if (n == 0 || (n == 2 && memcmp(s, "--", 2) == 0) || (n == 1 && s[0] == '-')) return 1;
  if (n == 3 && (memcmp(s, "NaN", 3) == 0 || memcmp(s, "nan", 3) == 0)) return 1;
  size_t k = n;
  double f = 1;
  switch (tc->kind) {
    case K_TIME: /* "us", "ms", "ns", "s" (the tests of ends_with, inline) */
      if (s[n - 1] != 's') return -1;
      if (n >= 2 && s[n - 2] == 'u') {
        k = n - 2;
        f = 1e3;
      } else if (n >= 2 && s[n - 2] == 'm') {
        k = n - 2;
        f = 1e6;
      } else if (n >= 2 && s[n - 2] == 'n') {
        k = n - 2;
        f = 1;
      } else {
        k = n - 1;
        f = 1e9;
      }
      break;
    case K_PCT:
      if (s[n - 1] != '%') return -1;
      k = n - 1;
      break;
    case K_MEM: {
      /* PyTorch < 2.1 prints b/Kb/Mb/Gb, later versions B/KB/MB/GB: both are
    ** 1024 steps of bytes (torch.autograd.profiler_util._format_memory) */
      if (n >= 3 && s[n - 3] == ' ' && (s[n - 1] == 'b' || s[n - 1] == 'B')) {
        char p = s[n - 2];
        if (p == 'G') f = 1073741824.0;
        else if (p == 'M') f = 1048576.0;
        else if (p == 'K') f = 1024.0;
        else return -1;
        k = n - 3;
      } else if (n >= 2 && s[n - 2] == ' ' && (s[n - 1] == 'b' || s[n - 1] == 'B')) {
        k = n - 2;
        f = 1;
      } else return -1;
      break;
    }
    case K_INT: {
      int64_t iv;
      if (pl_parse_int64(s, n, &iv) != 0) return -1;
      *v = (double)iv;
      return 0;
    }
    case K_FLOPS: f = tc->factor; break;
    default: return -1;
  }
  if (k == 0 || (!pl_parse_plain(s, k, v) && pl_parse_double(s, k, v) != 0)) return -1;
  *v = pl_unit_scale(*v, f);
  return 0;
}

static const char *kind_what(int kind) {
  switch (kind) {
    case K_TIME: return "a time with its unit (us, ms, s)";
    case K_PCT: return "a percentage like '12.80%'";
    case K_MEM: return "a memory size with its unit (B, KB, MB, GB or b, Kb, Mb, Gb)";
    case K_INT: return "an integer count";
    case K_FLOPS: return "a FLOPs number or '--'";
    default: return "text";
  }
}

/* Splits a row into fields on runs of 2+ spaces and gives each field to the
** column whose dash span holds the field's middle (or the nearest span): cells
** are right-aligned and a cell wider than its column overflows by a few
** characters, so fixed spans alone would cut it.  Fields landing in the same
** column are joined.  ca/cb receive each column's [start, end) in the line. */
static void assign_cells(const ttcol *cols, int ncols, const char *s, size_t n, size_t *ca, size_t *cb) {
  for (int k = 0; k < ncols; k++) { ca[k] = cb[k] = 0; }
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
  size_t i = 0;
  while (i < n) {
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i >= n) break;
    size_t a = i;
    while (i < n && !(s[i] == '\t' || (s[i] == ' ' && i + 1 < n && (s[i + 1] == ' ' || s[i + 1] == '\t')))) i++;
    size_t b = i, mid = (a + b) / 2;
    int best = ncols - 1;
    size_t bestd = (size_t)-1;
    for (int k = 0; k < ncols; k++) {
      size_t d = mid < cols[k].start ? cols[k].start - mid : mid >= cols[k].end ? mid - cols[k].end + 1 : 0;
      if (d < bestd) {
        bestd = d;
        best = k;
      }
      if (d == 0) break;
    }
    if (ca[best] == cb[best]) {
      ca[best] = a;
      cb[best] = b;
    } else {
      if (a < ca[best]) ca[best] = a;
      if (b > cb[best]) cb[best] = b;
    }
  }
}

/* assign_cells for the common row: every cell non-empty and inside its
** dash span, right-aligned to the span's end, followed by two spaces (or,
** for the last, by the line's end), no tab and no two spaces inside a
** cell, only spaces between the spans.  Then each cell is the one field
** assign_cells would find there, whose middle lies in that span: the same
** ca/cb are filled and 1 is returned; otherwise 0 (call assign_cells). */
static int fast_assign(const ttcol *cols, int ncols, const char *s, size_t n, size_t *ca, size_t *cb) {
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
  size_t i = 0;
  for (int k = 0; k < ncols; k++) {
    size_t st = cols[k].start, en = cols[k].end;
    if (k == ncols - 1) {
      if (n != en) return 0;
    } else if (en + 2 > n || s[en] != ' ' || s[en + 1] != ' ') return 0;
    /* spaces up to the cell (the gap and the padding) */
    for (;;) { /* 8 at a time (within the line) */
      uint64_t w;
      if (i + 8 > n) break;
      memcpy(&w, s + i, 8);
      w ^= 0x2020202020202020ull;
      if (w) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        i += (size_t)__builtin_ctzll(w) / 8; /* the spaces before the first other byte */
#endif
        break;
      }
      i += 8;
    }
    while (i < en && s[i] == ' ') i++;
    if (i < st || i >= en) return 0; /* text before the span, or an empty cell */
    size_t a = i;
    /* a word at a time while s[i + 8] is in the line: a tab, or a space
    ** followed by a space, anywhere in s[i..i+8) is a zero byte of x */
    while (i + 8 < en) {
      uint64_t w0, w1;
      memcpy(&w0, s + i, 8);
      memcpy(&w1, s + i + 1, 8);
      const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
      uint64_t dbl = (w0 ^ 0x2020202020202020ull) | (w1 ^ 0x2020202020202020ull);
      uint64_t tab = w0 ^ 0x0909090909090909ull;
      if (((dbl - ones) & ~dbl & high) | ((tab - ones) & ~tab & high)) return 0;
      i += 8;
    }
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (i < en && en >= 8 && en < n) {
      /* the rest, s[i..en) with i > en - 9, in the word s[en-8..en) (and
      ** s[en-7..en], s[en] being in the line): exact zero-byte flags, the
      ** bytes before i (checked already) masked off */
      uint64_t w0, w1;
      memcpy(&w0, s + en - 8, 8);
      memcpy(&w1, s + en - 7, 8);
      const uint64_t low7 = 0x7F7F7F7F7F7F7F7Full;
      uint64_t dbl = (w0 ^ 0x2020202020202020ull) | (w1 ^ 0x2020202020202020ull);
      uint64_t tab = w0 ^ 0x0909090909090909ull;
      uint64_t z = ~(((dbl & low7) + low7) | dbl | low7) | ~(((tab & low7) + low7) | tab | low7);
      size_t skip = i - (en - 8); /* 0..7 */
      if (z & (~0ull << (8 * skip))) return 0;
      i = en;
    }
#endif
    for (; i < en; i++) {
      if (s[i] == '\t') return 0;
      if (s[i] == ' ' && i + 1 < n && s[i + 1] == ' ') return 0; /* (within the line: s[n] may not exist) */
    }
    ca[k] = a;
    cb[k] = en;
  }
  return 1;
}

/* fast_assign through bitmaps of the line's spaces and tabs (64 bytes a
** word, SSE2 where there): the same tests, a few bit operations a cell
** instead of a pass over its bytes.  Lines longer than TT_BMW * 64 bytes
** go to fast_assign.  Reads s[0..n) only. */
#define TT_BMW 16
static inline unsigned tt_ctz64(uint64_t x) { /* x != 0 */
#if defined(__GNUC__)
  return (unsigned)__builtin_ctzll(x);
#else
  unsigned r = 0;
  while (!(x & 1)) {
    x >>= 1;
    r++;
  }
  return r;
#endif
}
static int fast_assign_bm(const ttcol *cols, int ncols, const char *s, size_t n, size_t *ca, size_t *cb) {
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
  if (n > TT_BMW * 64) return fast_assign(cols, ncols, s, n, ca, cb);
  uint64_t sp[TT_BMW + 2], bad[TT_BMW + 2];
  size_t nw = (n + 63) / 64;
  for (size_t w = 0; w < nw; w++) {
    size_t base = w * 64, j = 0;
    uint64_t ms = 0, mt = 0;
#if defined(__SSE2__)
    const __m128i vs = _mm_set1_epi8(' '), vt = _mm_set1_epi8('\t');
    for (; j < 64 && base + j + 16 <= n; j += 16) {
      __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + base + j));
      ms |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vs)) << j;
      mt |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vt)) << j;
    }
#endif
    for (; j < 64 && base + j < n; j++) {
      ms |= (uint64_t)(s[base + j] == ' ') << j;
      mt |= (uint64_t)(s[base + j] == '\t') << j;
    }
    sp[w] = ms;
    bad[w] = mt;
  }
  sp[nw] = sp[nw + 1] = 0;
  bad[nw] = bad[nw + 1] = 0;
  /* bad: a tab, or a space followed by a space (both in the line) */
  for (size_t w = 0; w < nw; w++) bad[w] |= sp[w] & ((sp[w] >> 1) | (sp[w + 1] << 63));
  size_t i = 0;
  for (int k = 0; k < ncols; k++) {
    size_t st = cols[k].start, en = cols[k].end;
    if (k == ncols - 1) {
      if (n != en) return 0;
    } else if (en + 2 > n) return 0;
    if (cols[k].fok) {
      size_t b = cols[k].fbase, bw = b >> 6, bb = b & 63;
      uint64_t wsp = bb ? (sp[bw] >> bb) | (sp[bw + 1] << (64 - bb)) : sp[bw];
      uint64_t wbad = bb ? (bad[bw] >> bb) | (bad[bw + 1] << (64 - bb)) : bad[bw];
      uint64_t x = ~wsp & cols[k].fM;
      if ((wsp & cols[k].fG) != cols[k].fG || !x) return 0;
      if (wbad & cols[k].fM & ~((x & (0 - x)) - 1)) return 0; /* a bad bit from the cell's first byte on */
      ca[k] = b + tt_ctz64(x);
      cb[k] = en;
      i = en;
      continue;
    }
    if (k != ncols - 1 && (!((sp[en >> 6] >> (en & 63)) & 1) || !((sp[(en + 1) >> 6] >> ((en + 1) & 63)) & 1)))
      return 0;
    /* the first byte at or after i that is not a space (n at most: sp's
    ** bits past n are 0, and sp[nw] is 0) */
    size_t w = i >> 6;
    uint64_t x = ~sp[w] & (~0ull << (i & 63));
    while (!x) x = ~sp[++w];
    size_t a = w * 64 + tt_ctz64(x);
    if (a < st || a >= en) return 0; /* text before the span, or an empty cell */
    /* no bad bit in [a, en) */
    for (size_t q = a; q < en;) {
      size_t qw = q >> 6, lo = q & 63, hi = en - qw * 64;
      uint64_t m = (hi >= 64 ? ~0ull : ((1ull << hi) - 1)) & (~0ull << lo);
      if (bad[qw] & m) return 0;
      q = (qw + 1) * 64;
    }
    ca[k] = a;
    cb[k] = en;
    i = en;
  }
  return 1;
}

static void cell_text(const size_t *ca, const size_t *cb, int k, const char *s, const char **cs, size_t *cn) {
  *cs = s + ca[k];
  *cn = cb[k] - ca[k];
}

/* Rows are built in a buffer of cells and appended whole (the values the
** pl_row_put_* calls would store; a cell not set is missing, as
** pl_row_end fills it). */
static pl_cell *tt_row_begin(const pl_table *t, pl_cell *rb, size_t *cap, pl_cell **tmpl, size_t *tmpl_n) {
  if (t->ncols > *cap) {
    *cap = t->ncols + 16;
    rb = pl_xrealloc(rb, *cap * sizeof *rb);
  }
  if (*tmpl_n != t->ncols) { /* the empty row, built once per column set */
    *tmpl = pl_xrealloc(*tmpl, (t->ncols ? t->ncols : 1) * sizeof **tmpl);
    for (size_t j = 0; j < t->ncols; j++) {
      switch (t->cols[j]->type) {
        case PL_NUM: (*tmpl)[j].d = NAN; break;
        case PL_STR:
          (*tmpl)[j].i = 0;
          (*tmpl)[j].s = 0;
          break;
        default: (*tmpl)[j].i = PL_INT_NA; break;
      }
    }
    *tmpl_n = t->ncols;
  }
  memcpy(rb, *tmpl, t->ncols * sizeof *rb);
  return rb;
}

/* The pool id pl_row_put_str would give s[0..n), through a small cache of
** recent ids (names repeat; a hit compares the pool's own copy). */
typedef struct tt_icache {
  uint32_t id[1024];
} tt_icache;
static uint32_t tt_intern(pl_table *t, tt_icache *ic, const char *s, size_t n) {
  if (n < 8) return pl_pool_intern(t->pool, s, n);
  uint64_t w, h = n * 0x9E3779B97F4A7C15ull;
  memcpy(&w, s, 8);
  h ^= w * 0xff51afd7ed558ccdull;
  memcpy(&w, s + n - 8, 8);
  h ^= w * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 31;
  h ^= h >> 17;
  uint32_t *slot = &ic->id[h & 1023];
  if (*slot) {
    size_t ln;
    const char *ps = pl_pool_str(t->pool, *slot, &ln);
    if (ps && ln == n && memcmp(ps, s, n) == 0) return *slot;
  }
  return *slot = pl_pool_intern(t->pool, s, n);
}

/* ---- the reader ------------------------------------------------------------ */

/* One parse: the cursor, the table being filled, the current key_averages
** table's columns and the row being built. */
typedef struct tt_ctx {
  pl_lines c;
  pl_profile *p;
  const pl_parse_opts *o;
  pl_err *err;
  pl_table *t;
  int ntables;
  int c_trunc, c_tidx, c_line, c_src;
  ttcol cols[TT_MAXCOLS];
  size_t ca[TT_MAXCOLS], cb[TT_MAXCOLS];
  int ncols;
  pl_buf src;  /* the source location of the open row, its lines joined */
  pl_cell *rb; /* the open row */
  size_t rbcap;
  pl_cell *tmpl;
  size_t tmpl_n;
  int open; /* 1: rb holds a row not yet appended */
  tt_icache ic;
} tt_ctx;

static void tt_free(tt_ctx *x) {
  pl_buf_free(&x->src);
  free(x->rb);
  free(x->tmpl);
}

/* Appends the open row (with its source location), if any. */
static void tt_close_row(tt_ctx *x) {
  if (!x->open) return;
  if (x->src.len && x->c_src >= 0) x->rb[x->c_src].s = tt_intern(x->t, &x->ic, x->src.data, x->src.len);
  pl_table_append(x->t, x->rb);
  x->open = 0;
  x->src.len = 0;
}

/* A line outside a table: the "Self CPU time total: 1.853s" footer into the
** metadata, a blank line skipped, anything else noted as program output.
** 0, or -1 with err set. */
static int tt_outside(tt_ctx *x, const pl_line *l) {
  const char *s = l->s;
  size_t n = l->n;
  pl_trim(&s, &n);
  if (n == 0) return 0;
  if (!(pl_starts(s, n, "Self ") && pl_find(s, n, " time total:"))) {
    pl_profile_diag(x->p, x->c.lineno, "program output: %.*s", (int)(n > 80 ? 80 : n), s);
    return 0;
  }
  const char *colon = memchr(s, ':', n);
  const char *dv = s + 5;
  const char *sp = memchr(dv, ' ', (size_t)(colon - dv));
  char dev[32], key[80];
  lower_into(dev, sizeof dev, dv, sp ? (size_t)(sp - dv) : 0);
  const char *v = colon + 1;
  size_t vn = (size_t)(s + n - v);
  pl_trim(&v, &vn);
  ttcol tc;
  memset(&tc, 0, sizeof tc);
  tc.kind = K_TIME;
  double d;
  if (cell_value(&tc, v, vn, &d) != 0)
    return pl_err_expected(x->err, x->c.lineno, (size_t)(v - l->s) + 1, "a time with its unit (us, ms, s)", v, vn);
  /* the first table's totals are the file's; later tables' get a "tableN." prefix */
  char pre[24] = "";
  if (x->ntables > 1) snprintf(pre, sizeof pre, "table%d.", x->ntables);
  snprintf(key, sizeof key, "%sself_%s_time_total_ns", pre, dev);
  pl_profile_meta_num(x->p, key, d);
  snprintf(key, sizeof key, "%sself_%s_time_total", pre, dev);
  pl_profile_meta_str(x->p, key, v, vn);
  return 0;
}

/* The head of a table: the column spans from the dashes line l (with the
** bit masks of the fast split), the header line's titles as typed columns
** of t, and the separator under it.  0, or -1 with err set. */
static int tt_head(tt_ctx *x, const pl_line *l) {
  ttcol *cols = x->cols;
  pl_line h, s2;
  memset(&s2, 0, sizeof s2);
  x->ncols = 0;
  for (size_t i = 0; i < l->n;) {
    if (l->s[i] != '-') {
      i++;
      continue;
    }
    size_t a = i;
    while (i < l->n && l->s[i] == '-') i++;
    if (x->ncols >= TT_MAXCOLS) return pl_err_set(x->err, x->c.lineno, a + 1, "more than %d columns", TT_MAXCOLS);
    cols[x->ncols].start = a;
    cols[x->ncols].end = i;
    x->ncols++;
  }
  int ncols = x->ncols;
  for (int k = 0; k < ncols; k++) {
    size_t b = k ? cols[k - 1].end : 0, st = cols[k].start, en = cols[k].end;
    size_t top = k == ncols - 1 ? en : en + 2;
    cols[k].fbase = b;
    cols[k].fok = top - b <= 64 && st >= b;
    if (!cols[k].fok) continue;
    uint64_t gap = st - b ? (~0ull >> (64 - (st - b))) : 0;          /* bits [0, st - b) */
    uint64_t upto = en - b >= 64 ? ~0ull : ((1ull << (en - b)) - 1); /* bits [0, en - b) */
    cols[k].fM = upto & ~gap;
    cols[k].fG = gap | (k == ncols - 1 ? 0 : (3ull << (en - b)));
  }
  pl_lines_next(&x->c, &h);
  size_t hline = x->c.lineno;
  x->ntables++;
  int have_name = 0;
  pl_table *t = x->t;
  assign_cells(cols, ncols, h.s, h.n, x->ca, x->cb);
  for (int k = 0; k < ncols; k++) {
    const char *hs;
    size_t hn;
    cell_text(x->ca, x->cb, k, h.s, &hs, &hn);
    if (hn == 0)
      return pl_err_expected(x->err, hline, cols[k].start + 1, "a column title above every dash group", h.s, h.n);
    classify(&cols[k], hs, hn);
    if (strcmp(cols[k].name, "name") == 0) have_name = 1;
    cols[k].col = pl_table_add_col(t, cols[k].name,
                                   cols[k].kind == K_TEXT  ? PL_STR
                                   : cols[k].kind == K_INT ? PL_INT
                                                           : PL_NUM);
    if (cols[k].col < 0)
      return pl_err_set(x->err, hline, cols[k].start + 1, "column '%s' repeats with another type", cols[k].hdr);
    /* calls: NULL, the schema's description (pl_profile_add_table) */
    pl_table_set_doc(
        t, cols[k].col,
        strcmp(cols[k].name, "name") == 0
            ? "event name as printed (right-aligned in the table; cut with '...' by PyTorch at the column width)"
        : strcmp(cols[k].name, "calls") == 0 ? NULL
                                             : kind_doc(&cols[k]));
    if (strcmp(cols[k].name, "source_location") == 0) x->c_src = cols[k].col;
  }
  if (!have_name) return pl_err_expected(x->err, hline, 1, "a 'Name' column in the key_averages header", h.s, h.n);
  x->c_trunc = pl_table_add_doc_col(t, "truncated", PL_BOOL, NULL);
  x->c_tidx = pl_table_add_doc_col(t, "table_index", PL_INT, "which table of the file (1-based) the row comes from");
  x->c_line = pl_table_add_doc_col(t, "line", PL_INT, "input line of the row");
  pl_lines_next(&x->c, &s2); /* the separator under the header */
  /* a size hint: rows are about as wide as the separator line (at most
  ** 2^19 rows: past that the columns grow as they fill) */
  if (t->nrows == 0) {
    size_t est = (size_t)(x->c.end - x->c.p) / (s2.n + 1) + 16;
    pl_table_reserve(t, est < ((size_t)1 << 19) ? est : ((size_t)1 << 19));
  }
  return 0;
}

/* The cells of row line l into the open row rb (fast: the cells came from
** the fast split, with nothing to trim).  0, or -1 with err set. */
static int tt_cells(tt_ctx *x, const pl_line *l, int fast) {
  ttcol *cols = x->cols;
  pl_cell *rb = x->rb;
  for (int k = 0; k < x->ncols; k++) {
    const char *cs;
    size_t cn;
    cell_text(x->ca, x->cb, k, l->s, &cs, &cn);
    if (cols[k].col == x->c_src) {
      if (cn) pl_buf_add(&x->src, cs, cn);
      continue;
    }
    if (cols[k].kind == K_TEXT) {
      if (cn) rb[cols[k].col].s = tt_intern(x->t, &x->ic, cs, cn);
      continue;
    }
    double v;
    if (fast && cn > 1) {
      /* the common spellings inline, with cell_value's values; anything
      ** else (missing marks, other units, other numbers) goes to it */
      int kind = cols[k].kind;
      if (kind == K_TIME && cs[cn - 1] == 's') {
        char u = cs[cn - 2];
        size_t kk = u == 'u' || u == 'm' || u == 'n' ? cn - 2 : cn - 1;
        double f = u == 'u' ? 1e3 : u == 'm' ? 1e6 : u == 'n' ? 1 : 1e9;
        if (kk > 0 && pl_parse_plain(cs, kk, &v)) {
          rb[cols[k].col].d = pl_unit_scale(v, f);
          continue;
        }
      } else if (kind == K_PCT && cs[cn - 1] == '%') {
        if (pl_parse_plain(cs, cn - 1, &v)) {
          rb[cols[k].col].d = v * 1;
          continue;
        }
      }
    }
    if (fast && cols[k].kind == K_INT && cn <= 15) {
      /* a count of 1 to 15 digits: pl_parse_int64's value, exact as a
      ** double (cell_value's path: pl_int_of((double)iv)) */
      uint64_t m = 0;
      size_t q = 0;
      for (; q < cn; q++) {
        unsigned d = (unsigned)(unsigned char)cs[q] - '0';
        if (d > 9) break;
        m = m * 10 + d;
      }
      if (q == cn) {
        rb[cols[k].col].i = (int64_t)m;
        continue;
      }
    }
    int rc = cell_value(&cols[k], cs, cn, &v);
    if (rc < 0) {
      char what[160];
      snprintf(what, sizeof what, "%.60s in column '%.60s'", kind_what(cols[k].kind), cols[k].hdr);
      return pl_err_expected(x->err, x->c.lineno, (size_t)(cs - l->s) + 1, what, cs, cn);
    }
    if (rc == 1) continue;
    if (cols[k].kind == K_INT) rb[cols[k].col].i = pl_int_of(v);
    else rb[cols[k].col].d = v;
  }
  return 0;
}

/* The rows of a table, up to its closing dashes line.  0, or -1 with err
** set (lenient: bad rows are dropped and listed). */
static int tt_body(tt_ctx *x) {
  pl_line l;
  int closed = 0;
  while (pl_lines_next(&x->c, &l)) {
    /* the first byte that is not a space decides most lines: a row's
    ** (a name) is neither a dashes line's nor a blank line's */
    size_t fi = 0;
    while (fi + 8 <= l.n) {
      uint64_t w;
      memcpy(&w, l.s + fi, 8);
      if (w != 0x2020202020202020ull) break;
      fi += 8;
    }
    while (fi < l.n && l.s[fi] == ' ') fi++;
    int other = fi < l.n && l.s[fi] != '-' && l.s[fi] != '\t' && l.s[fi] != '\r';
    if (!other && is_sep(l.s, l.n)) {
      closed = 1;
      break;
    }
    if (!other && pl_is_blank(l.s, l.n)) {
      tt_close_row(x);
      continue;
    }
    const char *ns;
    size_t nn;
    int fast = fast_assign_bm(x->cols, x->ncols, l.s, l.n, x->ca, x->cb);
    if (!fast) assign_cells(x->cols, x->ncols, l.s, l.n, x->ca, x->cb);
    cell_text(x->ca, x->cb, 0, l.s, &ns, &nn);
    if (nn == 0 && x->open && x->c_src >= 0) {
      /* a continuation row of a multi-line source location */
      for (int k = 1; k < x->ncols; k++)
        if (x->cols[k].col == x->c_src) {
          const char *cs;
          size_t cn;
          cell_text(x->ca, x->cb, k, l.s, &cs, &cn);
          if (cn) {
            if (x->src.len) pl_buf_adds(&x->src, "\n");
            pl_buf_add(&x->src, cs, cn);
          }
        }
      continue;
    }
    if (nn == 0) {
      pl_err_expected(x->err, x->c.lineno, 1, "a row with an event name in the first column", l.s, l.n);
      if (pl_lenient_skip(x->o, x->p, x->err)) continue;
      return -1;
    }
    tt_close_row(x);
    x->rb = tt_row_begin(x->t, x->rb, &x->rbcap, &x->tmpl, &x->tmpl_n);
    if (tt_cells(x, &l, fast) != 0) { /* lenient: the row is dropped and listed */
      if (!pl_lenient_skip(x->o, x->p, x->err)) return -1;
      x->src.len = 0;
      continue;
    }
    x->rb[x->c_trunc].i = pl_name_truncated(ns, nn) ? 1 : 0;
    x->rb[x->c_tidx].i = x->ntables;
    x->rb[x->c_line].i = (int64_t)x->c.lineno;
    x->open = 1;
  }
  tt_close_row(x);
  if (!closed) {
    pl_err_expected(x->err, x->c.lineno + 1, 1, "a row or the closing '----' line of the key_averages table", NULL, 0);
    if (!pl_lenient_skip(x->o, x->p, x->err)) return -1;
  }
  return 0;
}

static int tt_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  tt_ctx *x = pl_xcalloc(1, sizeof *x);
  pl_lines_init(&x->c, in->data, in->len);
  x->p = p;
  x->o = o;
  x->err = err;
  x->c_trunc = x->c_tidx = x->c_line = x->c_src = -1;
  pl_buf_init(&x->src);
  int want = pl_want_table(o, "operators");
  x->t = pl_table_new("operators");
  pl_line l, h, s2;
  while (pl_lines_next(&x->c, &l)) {
    if (o && o->interrupt && *o->interrupt) {
      pl_err_set(err, x->c.lineno, 1, "interrupted");
      goto fail;
    }
    /* a table starts with: dashes / header / dashes */
    int start = 0;
    if (is_sep(l.s, l.n) && pl_lines_peek(&x->c, &h) && header_like(h.s, h.n)) {
      pl_lines two = x->c;
      pl_lines_next(&two, &h);
      if (pl_lines_next(&two, &s2) && is_sep(s2.s, s2.n)) start = 1;
    }
    if (!start) {
      if (tt_outside(x, &l) != 0) goto fail;
      continue;
    }
    if (tt_head(x, &l) != 0 || tt_body(x) != 0) goto fail;
  }
  pl_table *t = x->t;
  int ntables = x->ntables;
  tt_free(x);
  free(x);
  if (ntables == 0) {
    pl_table_free(t);
    return pl_err_expected(err, 1, 1, "a key_averages() table (dashes, a header with 'Name' and 'Self CPU', dashes)",
                           in->data, in->len);
  }
  if (!pl_profile_meta_get(p, "self_cpu_time_total_ns")) pl_profile_diag(p, 0, "no 'Self CPU time total:' footer");
  if (want) pl_profile_add_table(p, t);
  else pl_table_free(t);
  pl_profile_meta_str(p, "tool", "torch.profiler key_averages", strlen("torch.profiler key_averages"));
  pl_profile_meta_num(p, "tables", ntables);
  return 0;
fail:
  pl_table_free(x->t);
  tt_free(x);
  free(x);
  return -1;
}

static int tt_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l, prev = { NULL, 0 };
  pl_lines_init(&c, data, len);
  int n = 0;
  while (pl_lines_next(&c, &l) && n++ < 400) {
    if (prev.s && is_sep(prev.s, prev.n) && header_like(l.s, l.n)) {
      pl_line nx;
      if (pl_lines_peek(&c, &nx) && is_sep(nx.s, nx.n)) return 90;
    }
    prev = l;
  }
  if (pl_find(data, len, "Self CPU time total:")) return 50;
  return 0;
}

const pl_format pl_fmt_torch_table = {
  "torch-table", "PyTorch profiler key_averages().table() text: CPU and CUDA/device columns, memory, shapes",
  "operators",   tt_detect,
  tt_parse,
};

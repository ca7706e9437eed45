/*
** fmt_ncu_text.c -- format "ncu-text": the Nsight Compute CLI details page
** as `ncu` / `nv-nsight-cu-cli` prints it, every generation from 2019 on:
**
**   [27316] program@127.0.0.1
**     NAME (8, 1, 1)x(128, 1, 1), Context 1, Stream 7, Device 0, CC 8.6
**     NAME, 2025-May-15 09:00:25, Context 1, Stream 7        (older form)
**       Section: Launch Statistics
**       ------------------------- ----------- ------------
**       Metric Name               Metric Unit Metric Value    (2022+; absent in the wide layout)
**       ------------------------- ----------- ------------
**       Registers Per Thread  register/thread          254
**       ------------------------- ----------- ------------
**       WRN   message ...                      (rules: WRN / INF / OPT / ERR)
**             continuation ...
**       ----- -------------------------------  (between rules)
**
** plus the 2019-2020 NVTX layout where `==PROF==   0: RANGE` and the
** sections come before the kernel line.  Everything else (shell prompts,
** `script` headers, ==PROF== progress, Markdown headings, the program's own
** output) is noise: program output goes to the program_output table, the
** rest to diagnostics.  Tables and columns: see ncu.h and
** docs/formats-ncu.md.
*/
#include "format.h"
#include "ncu.h"
#include "par.h"
#include "scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* pl_trim and pl_lines_next, inline: they run on every line (and the
** columns of a metric row are padded with runs of spaces: 8 at a time). */
#define SPACES8 0x2020202020202020ull
#define DASHES8 0x2d2d2d2d2d2d2d2dull
static inline uint64_t rd8(const char *s) {
  uint64_t w;
  memcpy(&w, s, 8);
  return w;
}
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NT_SWAR 1
#endif
static inline void trim(const char **s, size_t *n) {
  const char *p = *s;
  size_t k = *n;
  while (k >= 8) {
    uint64_t w = rd8(p) ^ SPACES8;
#ifdef NT_SWAR
    if (w) {
      size_t z = (size_t)__builtin_ctzll(w) >> 3;
      p += z;
      k -= z;
      break;
    }
#else
    if (w) break;
#endif
    p += 8;
    k -= 8;
  }
  while (k > 0 && (*p == ' ' || *p == '\t')) {
    p++;
    k--;
  }
  while (k >= 8) {
    uint64_t w = rd8(p + k - 8) ^ SPACES8;
#ifdef NT_SWAR
    if (w) {
      k -= (size_t)__builtin_clzll(w) >> 3;
      break;
    }
#else
    if (w) break;
#endif
    k -= 8;
  }
  while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\t' || p[k - 1] == '\r')) k--;
  *s = p;
  *n = k;
}

/* memchr(p, '\n', end - p), inline for the short rest of a metric row. */
static inline const char *find_nl(const char *p, const char *end) {
#ifdef NT_SWAR
  while (end - p >= 8) {
    uint64_t w = rd8(p) ^ 0x0a0a0a0a0a0a0a0aull;
    uint64_t z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
    if (z) return p + (__builtin_ctzll(z) >> 3);
    p += 8;
  }
#endif
  while (p < end) {
    if (*p == '\n') return p;
    p++;
  }
  return NULL;
}

static inline int starts(const char *s, size_t n, const char *prefix, size_t k) {
  return n >= k && memcmp(s, prefix, k) == 0;
}
#define STARTS(s, n, lit) starts(s, n, lit, sizeof lit - 1)

/* a[0..n) == b[0..n), reading nothing outside them. */
static inline int same(const char *a, const char *b, size_t n) {
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 < n; i += 8)
      if (rd8(a + i) != rd8(b + i)) return 0;
    return rd8(a + n - 8) == rd8(b + n - 8);
  }
  if (n >= 4) {
    uint32_t x, y, z, w;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    memcpy(&z, a + n - 4, 4);
    memcpy(&w, b + n - 4, 4);
    return x == y && z == w;
  }
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* ---- line shapes -------------------------------------------------------- */

static size_t indent_of(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  return i;
}

/* A line of dash groups ("---- ---- ----"); returns the number of groups and
** the start columns (0-based, in the line) of the first three. */
static int dash_groups(const char *s, size_t n, size_t starts[3], size_t lens[3]) {
  size_t i = indent_of(s, n);
  int g = 0;
  if (i >= n || s[i] != '-') return 0;
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  while (i < n) {
    if (s[i] != '-') return 0;
    size_t st = i;
    while (i + 8 <= n && rd8(s + i) == DASHES8) i += 8;
    while (i < n && s[i] == '-') i++;
    if (g < 3) {
      starts[g] = st;
      lens[g] = i - st;
    }
    g++;
    while (i < n && s[i] == ' ') i++;
  }
  return g;
}

static int is_table_rule(const char *s, size_t n, size_t st[3], size_t ln[3]) {
  return dash_groups(s, n, st, ln) == 3 && ln[0] >= 3;
}


/* "WRN", "INF", "OPT", "ERR" followed by a space or the end. */
static int severity_of(const char *t, size_t n) {
  if (n < 3 || (n > 3 && t[3] != ' ')) return 0;
  return memcmp(t, "WRN", 3) == 0 || memcmp(t, "INF", 3) == 0 || memcmp(t, "OPT", 3) == 0 || memcmp(t, "ERR", 3) == 0;
}

typedef struct khead {
  const char *name;
  size_t nn;
  int has_dims;
  int64_t dims[6];
  int64_t ctx, stream, dev;
  const char *cc;
  size_t ncc;
  const char *ts;
  size_t nts;
} khead;

static const char *find_last(const char *s, size_t n, const char *needle) {
  size_t k = strlen(needle);
  if (k > n) return NULL;
  for (size_t i = n - k + 1; i-- > 0;)
    if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0) return s + i;
  return NULL;
}

/* Timestamp "2020-Feb-20 22:42:24" exactly spanning s[0..n). */
static int is_stamp(const char *s, size_t n) {
  if (n != 20) return 0;
  static const char pat[] = "dddd-aaa-dd dd:dd:dd";
  for (size_t i = 0; i < n; i++) {
    char c = s[i], p = pat[i];
    if (p == 'd' && !(c >= '0' && c <= '9')) return 0;
    if (p == 'a' && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return 0;
    if (p != 'd' && p != 'a' && c != p) return 0;
  }
  return 1;
}

/* The kernel line: NAME [(grid)x(block) | , STAMP], Context N, Stream N[, Device N, CC X.Y]. */
static int parse_kernel_line(const char *t, size_t n, khead *h) {
  const char *q = find_last(t, n, ", Context ");
  if (q == NULL) return 0;
  memset(h, 0, sizeof *h);
  h->ctx = h->stream = h->dev = PL_INT_NA;
  size_t i = (size_t)(q - t) + 10;
  if (!pl_ncu_read_uint(t, n, &i, &h->ctx)) return 0;
  if (!STARTS(t + i, n - i, ", Stream ")) return 0;
  i += 9;
  if (!pl_ncu_read_uint(t, n, &i, &h->stream)) return 0;
  if (STARTS(t + i, n - i, ", Device ")) {
    i += 9;
    if (!pl_ncu_read_uint(t, n, &i, &h->dev)) return 0;
  }
  if (STARTS(t + i, n - i, ", CC ")) {
    i += 5;
    size_t st = i;
    while (i < n && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.')) i++;
    if (i == st) return 0;
    h->cc = t + st;
    h->ncc = i - st;
  }
  if (i < n && !STARTS(t + i, n - i, ", ")) return 0;
  size_t pn = (size_t)(q - t);
  const char *bx = find_last(t, pn, ")x(");
  if (pn > 0 && t[pn - 1] == ')' && bx) {
    size_t j = (size_t)(bx - t) + 2;
    int64_t blk[3], grd[3];
    if (pl_ncu_read_dim3(t, pn, &j, blk) && j == pn) {
      /* the '(' that opens the grid */
      size_t g = (size_t)(bx - t);
      while (g > 0 && t[g] != '(') g--;
      size_t jj = g;
      if (t[g] == '(' && pl_ncu_read_dim3(t, pn, &jj, grd) && jj == (size_t)(bx - t) + 1) {
        h->has_dims = 1;
        memcpy(h->dims, grd, sizeof grd);
        memcpy(h->dims + 3, blk, sizeof blk);
        pn = g;
      }
    }
  }
  if (!h->has_dims && pn >= 22 && is_stamp(t + pn - 20, 20) && t[pn - 22] == ',' && t[pn - 21] == ' ') {
    h->ts = t + pn - 20;
    h->nts = 20;
    pn -= 22;
  }
  const char *nm = t;
  pl_trim(&nm, &pn);
  if (pn == 0) return 0;
  h->name = nm;
  h->nn = pn;
  return 1;
}

/* "[pid] name@host": *name, *nn, *pid. */
static int process_fields(const char *t, size_t n, const char **name, size_t *nn, int64_t *pid) {
  if (n < 4 || t[0] != '[') return 0;
  size_t i = 1;
  if (!pl_ncu_read_uint(t, n, &i, pid) || i + 1 >= n || t[i] != ']' || t[i + 1] != ' ') return 0;
  i += 2;
  const char *at = memchr(t + i, '@', n - i);
  if (at == NULL || memchr(t + i, ' ', (size_t)(at - t) - i)) return 0;
  *name = t + i;
  *nn = (size_t)(at - t) - i;
  return 1;
}

static int parse_process(const char *t, size_t n, ncu_builder *b) {
  const char *name;
  size_t nn;
  int64_t pid;
  if (!process_fields(t, n, &name, &nn, &pid)) return 0;
  pl_ncu_b_process(b, name, nn, pid);
  return 1;
}

static int is_prompt_or_heading(const char *t, size_t n) {
  if (pl_starts(t, n, "$ ") || pl_starts(t, n, "# ") || pl_starts(t, n, "> ") || t[0] == '#') return 1;
  if (n == 4 && memcmp(t, "exit", 4) == 0) return 1;
  if (pl_starts(t, n, "Script started on") || pl_starts(t, n, "Script done on")) return 1;
  const char *at = memchr(t, '@', n);
  if (at) {
    const char *colon = memchr(at, ':', n - (size_t)(at - t));
    if (colon && (pl_find(colon, n - (size_t)(colon - t), "$ ") || pl_find(colon, n - (size_t)(colon - t), "# ") ||
                  t[n - 1] == '$' || t[n - 1] == '#'))
      return 1;
  }
  return 0;
}

static void look_for_version(pl_profile *p, const char *t, size_t n) {
  const char *v = pl_find(t, n, "Nsight-Compute-");
  size_t skip = 15;
  if (v == NULL && pl_find(t, n, "Nsight Compute")) {
    v = pl_find(t, n, "Version ");
    skip = 8;
  }
  if (v == NULL) {
    if (pl_find(t, n, "nv-nsight-cu-cli") && pl_profile_meta_get(p, "cli") == NULL)
      pl_profile_meta_str(p, "cli", "nv-nsight-cu-cli", 16);
    return;
  }
  const char *s = v + skip, *e = t + n, *q = s;
  while (q < e && ((*q >= '0' && *q <= '9') || *q == '.')) q++;
  if (q > s && pl_profile_meta_get(p, "version") == NULL) pl_profile_meta_str(p, "version", s, (size_t)(q - s));
}

/* The lines only ncu prints: "==PROF== Connected to process", "==PROF==
** Profiling "NAME" - N: ...", "==PROF== Disconnected from process",
** "==PROF== Report: PATH". */
static int prof_signature(const char *t, size_t n) {
  const char *r = t + 8;
  size_t rn = n - 8;
  pl_trim(&r, &rn);
  return pl_starts(r, rn, "Connected to process") || pl_starts(r, rn, "Profiling \"") ||
         pl_starts(r, rn, "Disconnected from process") || pl_starts(r, rn, "Report: ") ||
         pl_starts(r, rn, "Creating report");
}

/* The kernel line of `ncu --print-summary per-kernel` (ncu_summary.c). */
static int summary_head(const char *t, size_t n) { return pl_ncu_summary_head(t, n); }

/* ---- detection ---------------------------------------------------------- */

static int nt_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  int sections = 0, rules = 0, prof = 0, heads = 0, after_section = 0, sig = 0, sums = 0;
  size_t st[3], ln[3];
  while (pl_lines_next(&c, &l)) {
    const char *t = l.s;
    size_t n = l.n;
    pl_trim(&t, &n);
    if (n == 0) continue;
    if (pl_starts(t, n, "\"ID\",\"Process ID\"")) return 0; /* ncu --csv */
    if (pl_starts(t, n, "Section: ")) {
      sections++;
      after_section = 1;
      continue;
    }
    if (after_section && is_table_rule(l.s, l.n, st, ln)) rules++;
    after_section = 0;
    if (pl_starts(t, n, "==PROF==")) {
      prof++;
      if (prof_signature(t, n)) sig++;
    } else if (pl_find(t, n, ", Context ") && pl_find(t, n, ", Stream ")) heads++;
    else if (summary_head(t, n)) sums++;
  }
  if (sections > 0 && rules > 0) return 95;
  if (sections > 0 && heads > 0) return 85;
  if (sums > 0) return 80; /* --print-summary per-kernel (read by ncu_summary.c) */
  if (heads > 0 && prof > 0) return 60;
  /* ncu's own progress lines: a long run prints thousands of them before
  ** its first result, and a run with -o ends with '==PROF== Report:' */
  if (sig > 0) return 50;
  return 0;
}

/* ---- parsing ------------------------------------------------------------ */

enum { ST_TOP, ST_SEC, ST_TAB1, ST_TAB_HDR, ST_TAB_DATA };

/* The metric rows of a section repeat, in the same order, on every launch:
** each section name keeps the rows it had last time with what they
** resolved to (ncu_mkey), and a row that has the same name and unit as the
** one at its place last time is resolved from there. */
#define NT_MAX_SECS 256
#define NT_MAX_ROWS 4096
typedef struct nt_row {
  char *txt;
  size_t nm, nu; /* the name and unit */
  /* the row's line up to the value column, when whole rows may be matched
  ** (NULL when not): the same bytes there, with the same table layout,
  ** give the same name, unit and value start */
  char *pre;
  size_t npre, c2, c2end;
  size_t nm_off, un_off, vskip; /* where name and unit start; the value, at or after vskip */
  ncu_mkey k;
} nt_row;
#define NT_MAX_PRE 1024
typedef struct nt_sec {
  char *name;
  size_t n;
  int cls;
  uint32_t sec_id; /* the name's id in the metrics pool, 0: not yet */
  nt_row *rows;
  size_t nrows, cap;
  /* the three lines that opened its table last time (rule, 'Metric Name'
  ** header, rule; line ends included) and the columns they set: the same
  ** bytes after the 'Section:' line open the table the same way */
  char *hdr;
  size_t nhdr, hc2, hc2end, hc3;
} nt_sec;

typedef struct nt_dash {
  char s[256];
  size_t n;
  int g;
  size_t st[3], ln[3];
} nt_dash;

typedef struct tstate {
  ncu_builder b;
  int st;
  /* the current section */
  const char *sec;
  size_t nsec;
  int cls;
  size_t sec_line;
  const char *sec_end;  /* where the 'Section:' line's next line starts */
  size_t c2, c2end, c3; /* unit column start and end, value column start */
  /* a kernel begun by a section (2019-2020 layout), waiting for its kernel line */
  int pending;
  size_t pending_line;
  /* the rule message being read */
  int rule;
  size_t rule_ind, rule_line;
  char sev[4];
  double est, estl;
  pl_buf msg;
  int url_open;
  /* row caches per section name; cur: the current section's (-1: none) */
  nt_sec *secs;
  size_t nsecs;
  int cur;
  size_t rowi;
  /* dash lines' groups, by length (rule lines repeat) */
  nt_dash dm[16];
  /* ncu's ==ERROR== lines by profiled launch: the ID of the last
  ** '==PROF== Profiling "NAME" - ID:' line (-1: none yet); the errors
  ** printed after it, in ID order, attached when that launch's result is read */
  int64_t prof_id;
  struct nt_lerr {
    int64_t id;
    char *msg;
    size_t n;
  } * lerr;
  size_t nlerr, lerri;
  char *report;
  size_t nreport, report_line; /* '==PROF== Report: PATH' */
  pl_profile *p;
  const pl_parse_opts *o;
  pl_err *err;
  /* the line count of the next interrupt check; the launch block nt_lines
  ** stopped at (several threads): its kind and indentation */
  size_t next_check;
  int at_proc;
  size_t at_ind;
} tstate;

static void lerr_add(tstate *s, const char *t, size_t n) {
  if (s->nlerr > 0 && s->lerr[s->nlerr - 1].id == s->prof_id) {
    struct nt_lerr *e = &s->lerr[s->nlerr - 1];
    if (e->n > 4096) return;
    e->msg = pl_xrealloc(e->msg, e->n + 2 + n + 1);
    memcpy(e->msg + e->n, "; ", 2);
    memcpy(e->msg + e->n + 2, t, n);
    e->n += 2 + n;
    e->msg[e->n] = '\0';
    return;
  }
  if ((s->nlerr & (s->nlerr - 1)) == 0) s->lerr = pl_xrealloc(s->lerr, (s->nlerr ? s->nlerr * 2 : 4) * sizeof *s->lerr);
  struct nt_lerr *e = &s->lerr[s->nlerr++];
  e->id = s->prof_id;
  e->msg = pl_xstrndup(t, n);
  e->n = n;
}

/* The ==ERROR== text of the launch just opened (its id is b->nkernels). */
static void lerr_attach(tstate *s) {
  int64_t id = s->b.nkernels;
  while (s->lerri < s->nlerr && s->lerr[s->lerri].id < id) s->lerri++;
  if (s->lerri < s->nlerr && s->lerr[s->lerri].id == id)
    pl_ncu_b_launch_error(&s->b, s->lerr[s->lerri].msg, s->lerr[s->lerri].n);
}

static void lerr_free(tstate *s) {
  for (size_t i = 0; i < s->nlerr; i++) free(s->lerr[i].msg);
  free(s->lerr);
  s->lerr = NULL;
  s->nlerr = 0;
  free(s->report);
  s->report = NULL;
}

/* dash_groups, remembering the last dash line. */
static int dash_groups_m(tstate *s, const char *l, size_t n, size_t st[3], size_t ln[3]) {
  nt_dash *m = &s->dm[n & 15];
  if (m->n == n && m->g > 0 && same(m->s, l, n)) {
    memcpy(st, m->st, sizeof m->st);
    memcpy(ln, m->ln, sizeof m->ln);
    return m->g;
  }
  size_t i = indent_of(l, n);
  if (i >= n || l[i] != '-') return 0;
  int g = dash_groups(l, n, st, ln);
  if (n <= sizeof m->s && g > 0) {
    memcpy(m->s, l, n);
    m->n = n;
    m->g = g;
    memcpy(m->st, st, sizeof m->st);
    memcpy(m->ln, ln, sizeof m->ln);
  }
  return g;
}
static int tab_rule(tstate *s, const char *l, size_t n, size_t st[3], size_t ln[3]) {
  return dash_groups_m(s, l, n, st, ln) == 3 && ln[0] >= 3;
}
static int msg_sep(tstate *s, const char *l, size_t n) {
  size_t st[3], ln[3];
  return dash_groups_m(s, l, n, st, ln) == 2 && ln[0] == 5;
}

static void secs_free(tstate *s) {
  for (size_t i = 0; i < s->nsecs; i++) {
    nt_sec *x = &s->secs[i];
    for (size_t j = 0; j < x->nrows; j++) {
      free(x->rows[j].txt);
      free(x->rows[j].pre);
    }
    free(x->rows);
    free(x->name);
    free(x->hdr);
  }
  free(s->secs);
  s->secs = NULL;
  s->nsecs = 0;
}

/* The section's cache (-1 when there are too many sections to keep). */
static int sec_find(tstate *s, const char *name, size_t n) {
  for (size_t i = 0; i < s->nsecs; i++)
    if (s->secs[i].n == n && memcmp(s->secs[i].name, name, n) == 0) return (int)i;
  if (s->nsecs >= NT_MAX_SECS) return -1;
  if ((s->nsecs & (s->nsecs - 1)) == 0) s->secs = pl_xrealloc(s->secs, (s->nsecs ? s->nsecs * 2 : 8) * sizeof *s->secs);
  nt_sec *x = &s->secs[s->nsecs];
  memset(x, 0, sizeof *x);
  x->name = pl_xstrndup(name, n);
  x->n = n;
  x->cls = pl_ncu_section_class(name, n);
  return (int)s->nsecs++;
}

/* The cache entry of the current section's next metric row (holding its
** resolution), or NULL. */
static nt_row *row_key(tstate *s, const char *nm, size_t nnm, const char *un, size_t nun) {
  if (s->cur < 0) return NULL;
  nt_sec *x = &s->secs[s->cur];
  size_t i = s->rowi++;
  if (i < x->nrows) {
    nt_row *r = &x->rows[i];
    if (r->nm == nnm && r->nu == nun && same(r->txt, nm, nnm) && same(r->txt + nnm, un, nun)) return r;
    free(r->txt);
    free(r->pre);
  } else {
    if (i >= NT_MAX_ROWS) return NULL;
    if (x->nrows == x->cap) {
      x->cap = x->cap ? x->cap * 2 : 16;
      x->rows = pl_xrealloc(x->rows, x->cap * sizeof *x->rows);
    }
    i = x->nrows++;
  }
  nt_row *r = &x->rows[i];
  r->txt = pl_xmalloc(nnm + nun + 1);
  memcpy(r->txt, nm, nnm);
  memcpy(r->txt + nnm, un, nun);
  r->nm = nnm;
  r->nu = nun;
  r->pre = NULL;
  r->npre = 0;
  pl_ncu_mkey_init(&r->k);
  return r;
}

static void rule_flush(tstate *s) {
  if (!s->rule) return;
  pl_ncu_b_rule(&s->b, s->sec, s->nsec, NULL, 0, s->sev, 3, s->msg.data ? s->msg.data : "", s->msg.len, s->est, s->estl,
                s->rule_line);
  s->rule = 0;
}

/* Appends one line of message text, re-joining a URL wrapped mid-word. */
static void rule_add(tstate *s, const char *t, size_t n) {
  if (n == 0) return;
  if (s->msg.len > 0 && !s->url_open) pl_buf_addc(&s->msg, ' ');
  pl_buf_add(&s->msg, t, n);
  /* last token: an URL whose closing ')' has not come yet? */
  size_t i = n;
  while (i > 0 && t[i - 1] != ' ') i--;
  const char *tok = t + i;
  size_t tn = n - i;
  const char *h = pl_find(tok, tn, "http");
  s->url_open = h != NULL && memchr(h, ')', tn - (size_t)(h - tok)) == NULL && tok[0] == '(';
}

/* What a line handler tells the loop. */
enum { NT_NEXT, NT_FAIL, NT_OUTSIDE, NT_SUMMARY, NT_SLOW, NT_AT };

/* The next line.  *frp: the row cache entry it matches, or NULL.  The
** common case is a metric row whose bytes up to the value column are those
** of the row at this place in this section last time (those bytes hold no
** line end: the line's end is looked for after them).  0 at the end. */
static inline int next_line(tstate *s, pl_lines *c, pl_line *l, nt_row **frp) {
  nt_row *fr = NULL;
  if (s->st == ST_TAB_DATA && s->cur >= 0 && s->rowi < s->secs[s->cur].nrows) {
    fr = &s->secs[s->cur].rows[s->rowi];
    if (!(fr->pre && fr->npre == s->c3 && fr->c2 == s->c2 && fr->c2end == s->c2end && (size_t)(c->end - c->p) > s->c3 &&
          same(c->p, fr->pre, s->c3)))
      fr = NULL;
  }
  *frp = fr;
  if (fr == NULL) return pl_lines_next(c, l);
  const char *ls = c->p, *q = c->p + s->c3;
  const char *nl = find_nl(q, c->end);
  size_t ln = nl ? (size_t)(nl - ls) : (size_t)(c->end - ls);
  c->p = nl ? nl + 1 : c->end;
  if (ln > 0 && ls[ln - 1] == '\r') ln--;
  l->s = ls;
  l->n = ln;
  c->lineno++;
  return 1;
}

/* A metric row that next_line matched to its cache entry fr: NT_SLOW when
** it has no value past the value column (read it the slow way). */
static inline int fast_row(tstate *s, nt_row *fr, const pl_line *l, size_t lineno) {
  if (l->n <= s->c3) return NT_SLOW;
  size_t e = l->n;
  while (e > 0 && (l->s[e - 1] == ' ' || l->s[e - 1] == '\t')) e--;
  if (e <= s->c3) return NT_SLOW;
  const char *va = l->s + fr->vskip;
  size_t nva = e - fr->vskip;
  trim(&va, &nva);
  s->rowi++;
  if (pl_ncu_b_metric_fast(&s->b, &fr->k, va, nva)) return NT_NEXT;
  if (pl_ncu_b_metric_k(&s->b, &fr->k, s->sec, s->nsec, &s->secs[s->cur].sec_id, s->cls, l->s + fr->nm_off, fr->nm,
                        l->s + fr->un_off, fr->nu, va, nva, lineno, (size_t)(va - l->s) + 1, s->err) != 0)
    return pl_lenient_skip(s->o, s->p, s->err) ? NT_NEXT : NT_FAIL;
  return NT_NEXT;
}

/* A '-----' rule inside a table: the one under the 'Metric Name' header
** opens the data rows, any other closes the table. */
static int table_rule(tstate *s, const pl_lines *c) {
  if (s->st != ST_TAB_HDR) {
    s->st = ST_SEC; /* the table is closed; rules may follow */
    return NT_NEXT;
  }
  s->st = ST_TAB_DATA;
  /* the table opened by the three lines right after 'Section:': keep them */
  if (s->cur >= 0 && c->lineno == s->sec_line + 3 && c->p > s->sec_end && c->p[-1] == '\n') {
    nt_sec *x = &s->secs[s->cur];
    size_t nh = (size_t)(c->p - s->sec_end);
    if (nh <= NT_MAX_PRE * 4 && !(x->hdr && x->nhdr == nh && memcmp(x->hdr, s->sec_end, nh) == 0)) {
      free(x->hdr);
      x->hdr = pl_xmalloc(nh);
      memcpy(x->hdr, s->sec_end, nh);
      x->nhdr = nh;
      x->hc2 = s->c2;
      x->hc2end = s->c2end;
      x->hc3 = s->c3;
    }
  }
  return NT_NEXT;
}

/* Remembers where row r's name, unit and value lie in line l, so that the
** next line with these bytes up to the value column is read as this row. */
static void row_remember(tstate *s, nt_row *r, const pl_line *l, const char *nm, const char *un, size_t vs) {
  r->pre = pl_xmalloc(s->c3);
  memcpy(r->pre, l->s, s->c3);
  r->npre = s->c3;
  r->c2 = s->c2;
  r->c2end = s->c2end;
  r->nm_off = (size_t)(nm - l->s);
  r->un_off = (size_t)(un - l->s);
  size_t vk = vs;
  while (vk < s->c3 && (l->s[vk] == ' ' || l->s[vk] == '\t')) vk++;
  r->vskip = vk;
}

/* A metric row: NAME | UNIT | VALUE at the rule's columns. */
static int metric_row(tstate *s, const pl_line *l, size_t lineno, const char *t, size_t n, size_t ind) {
  size_t e = l->n;
  while (e > 0 && (l->s[e - 1] == ' ' || l->s[e - 1] == '\t')) e--;
  if (e <= s->c3 || severity_of(t, n) || STARTS(t, n, "Section: ")) {
    char what[160];
    snprintf(what, sizeof what, "a metric row or the closing '-----' rule of section '%.*s'",
             (int)(s->nsec > 80 ? 80 : s->nsec), s->sec);
    pl_err_expected(s->err, lineno, ind + 1, what, t, n);
    if (!pl_lenient_skip(s->o, s->p, s->err)) return NT_FAIL;
    /* lenient: a section or rule line closes the table and is read as such */
    if (!(severity_of(t, n) || pl_starts(t, n, "Section: "))) return NT_NEXT;
    s->st = ST_SEC;
    return NT_OUTSIDE;
  }
  size_t vs = s->c3;
  while (vs > ind && l->s[vs - 1] != ' ') vs--;
  /* units are right-aligned in their column: a unit ends at c2end; text
  ** there that does not reach c2end is a long name running over */
  size_t us;
  if (s->c2end <= vs) {
    if (l->s[s->c2end - 1] != ' ') {
      us = s->c2end - 1;
      while (us > ind && l->s[us - 1] != ' ') us--;
    } else us = vs;
  } else {
    us = s->c2 < vs ? s->c2 : vs;
    while (us > ind && l->s[us - 1] != ' ') us--;
  }
  const char *nm = l->s, *un = l->s + us, *va = l->s + vs;
  size_t nnm = us, nun = vs - us, nva = e - vs;
  trim(&nm, &nnm);
  trim(&un, &nun);
  trim(&va, &nva);
  if (nnm == 0) {
    pl_err_expected(s->err, lineno, ind + 1, "a metric name", t, n);
    return pl_lenient_skip(s->o, s->p, s->err) ? NT_NEXT : NT_FAIL;
  }
  nt_row *r = row_key(s, nm, nnm, un, nun);
  ncu_mkey *mk, tk;
  if (r == NULL) {
    pl_ncu_mkey_init(&tk);
    mk = &tk;
  } else {
    mk = &r->k;
    if (r->pre == NULL && t[0] != '-' && t[0] != '=' && ind + 9 < s->c3 && s->c3 <= NT_MAX_PRE)
      row_remember(s, r, l, nm, un, vs);
  }
  if (pl_ncu_b_metric_k(&s->b, mk, s->sec, s->nsec, s->cur >= 0 ? &s->secs[s->cur].sec_id : NULL, s->cls, nm, nnm, un,
                        nun, va, nva, lineno, (size_t)(va - l->s) + 1, s->err) != 0)
    return pl_lenient_skip(s->o, s->p, s->err) ? NT_NEXT : NT_FAIL;
  return NT_NEXT;
}

/* A line inside a section table (states ST_TAB1, ST_TAB_HDR, ST_TAB_DATA). */
static int table_line(tstate *s, const pl_lines *c, const pl_line *l, const char *t, size_t n, size_t ind) {
  size_t tst[3], tln[3];
  if (n == 0) return NT_NEXT;
  if (t[0] == '=' && STARTS(t, n, "==PROF==")) return NT_NEXT;
  if (t[0] == '-' && tab_rule(s, l->s, l->n, tst, tln)) return table_rule(s, c);
  if (s->st == ST_TAB_HDR) {
    pl_err_expected(s->err, c->lineno, ind + 1, "the '-----' rule under the 'Metric Name' header", t, n);
    if (!pl_lenient_skip(s->o, s->p, s->err)) return NT_FAIL;
    s->st = ST_TAB_DATA;
    return NT_NEXT;
  }
  if (s->st == ST_TAB1 && STARTS(t, n, "Metric Name")) {
    s->st = ST_TAB_HDR;
    return NT_NEXT;
  }
  s->st = ST_TAB_DATA;
  return metric_row(s, l, c->lineno, t, n, ind);
}

/* "Section: NAME": a new section, whose table may open as it did last time. */
static void section_line(tstate *s, pl_lines *c, const char *t, size_t n) {
  ncu_builder *b = &s->b;
  if (!b->open) {
    pl_ncu_b_begin(b, c->lineno);
    s->pending = 1;
    s->pending_line = c->lineno;
  }
  s->sec = t + 9;
  s->nsec = n - 9;
  trim(&s->sec, &s->nsec);
  s->cur = sec_find(s, s->sec, s->nsec);
  s->rowi = 0;
  s->cls = s->cur >= 0 ? s->secs[s->cur].cls : pl_ncu_section_class(s->sec, s->nsec);
  s->sec_line = c->lineno;
  s->sec_end = c->p;
  b->nsections++;
  s->st = ST_SEC;
  if (s->cur < 0) return;
  /* the same three lines as last time: the table opens as it did then */
  const nt_sec *x = &s->secs[s->cur];
  if (x->hdr && (size_t)(c->end - c->p) >= x->nhdr && memcmp(c->p, x->hdr, x->nhdr) == 0) {
    c->p += x->nhdr;
    c->lineno += 3;
    s->c2 = x->hc2;
    s->c2end = x->hc2end;
    s->c3 = x->hc3;
    s->st = ST_TAB_DATA;
  }
}

/* "WRN   message ...": a rule message begins. */
static void rule_begin(tstate *s, size_t lineno, const char *t, size_t n, size_t ind) {
  s->rule = 1;
  s->rule_ind = ind;
  s->rule_line = lineno;
  memcpy(s->sev, t, 3);
  s->sev[3] = '\0';
  s->est = s->estl = NAN;
  s->msg.len = 0;
  s->url_open = 0;
  size_t i = 3;
  while (i < n && t[i] == ' ') i++;
  i += pl_ncu_speedup_prefix(t + i, n - i, &s->est, &s->estl);
  while (i < n && t[i] == ' ') i++;
  rule_add(s, t + i, n - i);
}

/* "==PROF== ..." (after the "==PROF==" prefix, trimmed: r[0..rn)). */
static int prof_line(tstate *s, size_t lineno, const char *t, size_t n, const char *r, size_t rn) {
  size_t i = 0;
  int64_t idx;
  s->prof_id = -1; /* ==ERROR== lines belong to the Profiling line just above */
  if (pl_ncu_read_uint(r, rn, &i, &idx) && i < rn && r[i] == ':') {
    /* "==PROF==   0: RANGE": an NVTX range; its sections and kernel line follow */
    if (s->pending && s->b.open) {
      pl_err_expected(s->err, lineno, 1, "the kernel line 'NAME, DATE, Context N, Stream N' of the sections above", t,
                      n);
      return NT_FAIL;
    }
    const char *rg = r + i + 1;
    size_t rgn = rn - i - 1;
    pl_trim(&rg, &rgn);
    pl_ncu_b_range(&s->b, rg, rgn);
  } else if (pl_starts(r, rn, "Profiling \"")) {
    /* '==PROF== Profiling "NAME" - ID: 0%....100% - N passes' */
    const char *dash = pl_find(r, rn, "\" - ");
    size_t j = dash ? (size_t)(dash - r) + 4 : rn;
    int64_t id;
    if (j < rn && pl_ncu_read_uint(r, rn, &j, &id) && j < rn && r[j] == ':') s->prof_id = id;
  } else if (pl_starts(r, rn, "Report: ")) {
    const char *rp = r + 8;
    size_t rpn = rn - 8;
    pl_trim(&rp, &rpn);
    free(s->report);
    s->report = pl_xstrndup(rp, rpn);
    s->nreport = rpn;
    s->report_line = lineno;
  } else if (pl_starts(r, rn, "Connected to process ")) {
    const char *pp = memchr(r, '(', rn);
    if (pp && r[rn - 1] == ')' && pl_profile_meta_get(s->p, "executable") == NULL)
      pl_profile_meta_str(s->p, "executable", pp + 1, rn - (size_t)(pp - r) - 2);
  }
  return NT_NEXT;
}

/* A line that is not the report's: ncu's log lines, the process line,
** prompts and headings, the program's own output.  Closes the section. */
static int noise_line(tstate *s, size_t lineno, const char *t, size_t n) {
  s->st = ST_TOP;
  s->sec = NULL;
  s->nsec = 0;
  if (STARTS(t, n, "==PROF==")) {
    const char *r = t + 8;
    size_t rn = n - 8;
    pl_trim(&r, &rn);
    return prof_line(s, lineno, t, n, r, rn);
  }
  if (STARTS(t, n, "==WARNING==") || STARTS(t, n, "==ERROR==") || STARTS(t, n, "==WARN==")) {
    pl_profile_diag(s->p, lineno, "ncu message: %.*s", (int)(n > 200 ? 200 : n), t);
    if (STARTS(t, n, "==ERROR==") && s->prof_id >= 0) {
      const char *em = t + 9;
      size_t emn = n - 9;
      pl_trim(&em, &emn);
      lerr_add(s, em, emn);
    }
    return NT_NEXT;
  }
  /* any other line ends the ==ERROR== lines of the launch profiled last
  ** (an error after the program's output is the run's, not the launch's) */
  s->prof_id = -1;
  if (parse_process(t, n, &s->b)) return NT_NEXT;
  if (is_prompt_or_heading(t, n)) {
    look_for_version(s->p, t, n);
    pl_profile_diag(s->p, lineno, "skipped shell prompt, script header or heading");
    return NT_NEXT;
  }
  look_for_version(s->p, t, n);
  pl_ncu_b_output(&s->b, lineno, t, n);
  return NT_NEXT;
}

/* A line outside a section table. */
static int outside_line(tstate *s, pl_lines *c, const pl_line *l, const char *t, size_t n, size_t ind) {
  ncu_builder *b = &s->b;
  size_t tst[3], tln[3];
  /* a rule message being read */
  if (s->rule) {
    if (n > 0 && ind >= s->rule_ind + 4 && !STARTS(t, n, "Section: ") && !(t[0] == '-' && msg_sep(s, l->s, l->n))) {
      rule_add(s, t, n);
      return NT_NEXT;
    }
    rule_flush(s);
  }
  if (n == 0) return NT_NEXT;
  if (STARTS(t, n, "Section: ")) {
    section_line(s, c, t, n);
    return NT_NEXT;
  }
  if (s->st == ST_SEC && s->sec && n > 0 && t[0] == '-' && tab_rule(s, l->s, l->n, tst, tln)) {
    s->c2 = tst[1];
    s->c2end = tst[1] + tln[1];
    s->c3 = tst[2];
    s->st = ST_TAB1;
    return NT_NEXT;
  }
  if (t[0] == '-' && msg_sep(s, l->s, l->n) && b->open && s->sec) return NT_NEXT;
  if (severity_of(t, n) && b->open && s->sec) {
    rule_begin(s, c->lineno, t, n, ind);
    return NT_NEXT;
  }
  /* the --print-summary per-kernel layout: read by its own reader */
  if (t[0] != '=' && b->nkernels == 0 && !b->open && summary_head(t, n)) return NT_SUMMARY;
  khead h;
  if (!STARTS(t, n, "==") && parse_kernel_line(t, n, &h)) {
    if (!(s->pending && b->open)) pl_ncu_b_begin(b, c->lineno);
    pl_ncu_b_header(b, h.name, h.nn, h.has_dims ? h.dims : NULL, h.ctx, h.stream, h.dev, h.cc, h.ncc, h.ts, h.nts);
    lerr_attach(s);
    s->prof_id = -1;
    if (s->pending) {
      pl_ncu_b_end(b);
      s->pending = 0;
    }
    s->st = ST_TOP;
    s->sec = NULL;
    s->nsec = 0;
    return NT_NEXT;
  }
  return noise_line(s, c->lineno, t, n);
}

/* The end of the input: an open table, a last rule, a launch without its
** kernel line, or no launch at all.  0, or -1 with err set. */
static int nt_finish(tstate *s, const pl_lines *c, const pl_input *in) {
  ncu_builder *b = &s->b;
  if (s->st == ST_TAB1 || s->st == ST_TAB_HDR || s->st == ST_TAB_DATA) {
    char what[160];
    snprintf(what, sizeof what, "a metric row or the closing '-----' rule of section '%.*s'",
             (int)(s->nsec > 80 ? 80 : s->nsec), s->sec);
    size_t eofline = in->len > 0 && in->data[in->len - 1] == '\n' ? c->lineno + 1 : c->lineno;
    pl_err_expected(s->err, eofline, 1, what, NULL, 0);
    if (!pl_lenient_skip(s->o, s->p, s->err)) return -1;
  }
  rule_flush(s);
  if (s->pending && b->open) {
    /* 2019-2020 layout: the input ends before the kernel line of the last
    ** sections (a paste cut there).  The launch is kept, without a name. */
    pl_profile_diag(
        s->p, s->pending_line,
        "the sections from this line on have no kernel line (the input ends first); launch %lld kept without a name",
        (long long)b->nkernels);
  }
  if (b->nkernels == 0 && !b->open && s->report) {
    pl_err_set(s->err, s->report_line, 1,
               "expected an Nsight Compute details page, found only ncu's log: the results "
               "went to the report '%s'; export them with 'ncu --import %s --page details' (or --csv) and read that",
               s->report, s->report);
    return -1;
  }
  if (b->nkernels == 0 && !b->open) {
    pl_err_set(s->err, 1, 1,
               "expected an Nsight Compute details page (a kernel line and 'Section:' tables), found no kernel launch");
    return -1;
  }
  pl_ncu_b_finish(b);
  return 0;
}

static void nt_free(tstate *s) {
  pl_buf_free(&s->msg);
  secs_free(s);
  lerr_free(s);
}

static void nt_init(tstate *s, pl_profile *p, const pl_parse_opts *o, pl_err *err, size_t len) {
  memset(s, 0, sizeof *s);
  pl_ncu_b_init(&s->b, p, o);
  s->b.defer_raw = 1;                                  /* the input stays mapped for the whole parse */
  if (s->b.want_m) pl_table_reserve(s->b.m, len / 64); /* a size hint: a metric line is 40-100 bytes */
  pl_buf_init(&s->msg);
  s->p = p;
  s->o = o;
  s->err = err;
  s->cur = -1;
  s->prof_id = -1;
  s->next_check = 4096;
}

/* ---- launch blocks ------------------------------------------------------ */

/* The trimmed line at p (a line start) and its indentation. */
static void line_at(const char *p, const char *end, const char **t, size_t *n, size_t *ind) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  const char *s = p;
  size_t k = nl ? (size_t)(nl - p) : (size_t)(end - p);
  trim(&s, &k);
  *t = s;
  *n = k;
  *ind = (size_t)(s - p);
}

/* A line the reader takes for a kernel line wherever it stands outside a
** table (and not for a rule message, a rule line, a section or the
** --print-summary layout). */
static int kernel_shaped(const char *t, size_t n) {
  khead h;
  return n > 0 && t[0] != '-' && !STARTS(t, n, "==") && !STARTS(t, n, "Section: ") && !severity_of(t, n) &&
         !summary_head(t, n) && parse_kernel_line(t, n, &h);
}

/* A "[pid] name@host" line the reader takes for one. */
static int process_shaped(const char *t, size_t n) {
  const char *nm;
  size_t nn;
  int64_t pid;
  return process_fields(t, n, &nm, &nn, &pid) && !severity_of(t, n) && !summary_head(t, n) &&
         !parse_kernel_line(t, n, &(khead){ 0 });
}

/* Does a launch block begin at line start p: a process line whose next
** non-blank line is a kernel line (*proc = 1), or a kernel line whose last
** non-blank line before is not a process line (*proc = 0)?  (Blank lines
** between them change nothing: the process line closed the section and
** ended any rule message.)  lo: the input's start; *ind: the line's
** indentation. */
static int block_start(const char *lo, const char *p, const char *end, int *proc, size_t *ind) {
  const char *t;
  size_t n;
  line_at(p, end, &t, &n, ind);
  if (n == 0) return 0;
  if (t[0] == '[') {
    if (!process_shaped(t, n)) return 0;
    const char *q = p, *t2;
    size_t n2 = 0, ind2;
    while (n2 == 0) {
      q = memchr(q, '\n', (size_t)(end - q));
      if (q == NULL) return 0;
      q++;
      line_at(q, end, &t2, &n2, &ind2);
      if (n2 == 0 && q >= end) return 0;
    }
    *proc = 1;
    return kernel_shaped(t2, n2);
  }
  if (!kernel_shaped(t, n)) return 0;
  const char *e = p; /* the end of the line before (its '\n' at e[-1]) */
  while (e > lo) {
    const char *q = e - 1;
    while (q > lo && q[-1] != '\n') q--;
    const char *t0;
    size_t n0, ind0;
    line_at(q, e, &t0, &n0, &ind0);
    if (n0 > 0) {
      if (t0[0] == '[' && process_shaped(t0, n0)) return 0;
      break;
    }
    e = q;
  }
  *proc = 0;
  return 1;
}

/* Reads lines until the end of the input (NT_NEXT), a failure (NT_FAIL),
** the summary layout (NT_SUMMARY), or, with until set, the first launch
** block that begins at or past it (NT_AT: c->p is its first line, not
** read; s->at_proc and s->at_ind say its kind and indentation).  in: the
** main thread's input (interrupt and progress), NULL in a worker. */
static int nt_lines(tstate *s, pl_lines *c, const char *until, const pl_input *in) {
  const pl_parse_opts *o = s->o;
  pl_line l;
  nt_row *fr;
  int r = NT_NEXT;
  for (;;) {
    if (until && c->p >= until && c->p < c->end &&
        block_start(in ? in->data : c->base, c->p, c->end, &s->at_proc, &s->at_ind))
      return NT_AT;
    if (!next_line(s, c, &l, &fr)) break;
    if (c->lineno >= s->next_check) {
      s->next_check = c->lineno + 4096;
      if (in && o && o->interrupt && *o->interrupt) {
        pl_err_set(s->err, c->lineno, 1, "interrupted");
        return NT_FAIL;
      }
      if (in && o && o->progress) o->progress(o->progress_ud, (size_t)(l.s - in->data), in->len);
    }
    if (fr && (r = fast_row(s, fr, &l, c->lineno)) != NT_SLOW) {
      if (r == NT_FAIL) return r;
      continue;
    }
    const char *t = l.s;
    size_t n = l.n;
    trim(&t, &n);
    size_t ind = (size_t)(t - l.s);
    r = NT_OUTSIDE;
    if (s->st == ST_TAB1 || s->st == ST_TAB_HDR || s->st == ST_TAB_DATA) r = table_line(s, c, &l, t, n, ind);
    if (r == NT_OUTSIDE) r = outside_line(s, c, &l, t, n, ind);
    if (r == NT_FAIL || r == NT_SUMMARY) return r;
  }
  return NT_NEXT;
}

/* ---- several threads ---------------------------------------------------- */

/* The input is read through pl_par_body_read (par.h) in pieces cut at
** guessed offsets (pl_parse_opts.chunk_bytes, 4 MiB by default); each
** piece after the first begins at the first launch block that begins in it
** (nt_first, block_start: line ends are never ambiguous here, only the
** reader's state at a block is).  A worker reads a piece from there with a
** reader of its own (its own tables, pools and profile), up to the first
** block at or past the next guess, and checks that its state there is one
** a block starts from: no open table, no rule message a deeper-indented
** line would continue, no NVTX range or 2019-layout sections waiting for a
** kernel line, no ==ERROR== lines waiting for their launch; then it ends
** its last launch as the block's first line would.  The main thread reads
** piece 0 itself and walks on in file order; where it stands at a piece's
** start in a state such a worker's fresh one gives the same reading from
** (the same conditions, plus pl_ncu_b_merge_fits: no locale number format
** seen yet, its process name already in its pool where the piece's first
** launches have no process line), it ends its own launch, appends the
** piece's rows (nt_merge, pl_ncu_b_merge: launch ids and line numbers
** moved on, strings re-interned in the order the piece met them, its
** process filled in) and goes on from where the worker stopped; else it
** reads the piece itself, so errors, diagnostics and --lenient are the
** one-thread read's.  Workers read with --lenient off: a piece with any
** bad row is read again. */
#define NT_CHUNK_DEFAULT (4u << 20)

typedef struct nt_piece {
  tstate *s;     /* its reader */
  pl_profile *p; /* its diagnostics and meta */
  pl_err err;
} nt_piece;

/* The main reader, as the driver's callbacks see it. */
typedef struct nt_body {
  tstate *s;
  const pl_input *in;
  pl_parse_opts wo; /* the workers' options: not lenient, no progress */
  int summary;      /* the main reader met the --print-summary layout */
} nt_body;

static int in_table(const tstate *s) { return s->st == ST_TAB1 || s->st == ST_TAB_HDR || s->st == ST_TAB_DATA; }

/* Would a line of indentation ind, a block's first line, leave s's rule
** message and pending sections as a fresh reader's (none)? */
static int block_clean(const tstate *s, size_t ind) {
  return !in_table(s) && !(s->rule && ind >= s->rule_ind + 4) && !s->pending && s->b.range == NULL;
}

static void nt_piece_free(void *piece) {
  nt_piece *c = piece;
  if (c->s) {
    pl_ncu_b_free(&c->s->b);
    nt_free(c->s);
    free(c->s);
  }
  if (c->p) pl_profile_free(c->p);
  free(c);
}

/* The first launch block that begins at or past line start q, before lim. */
static const char *nt_first(void *ud, const char *q, const char *lim, const char *end) {
  const nt_body *B = ud;
  int proc;
  size_t ind;
  while (q < lim) {
    if (block_start(B->in->data, q, end, &proc, &ind)) return q;
    q = memchr(q, '\n', (size_t)(end - q));
    q = q ? q + 1 : end;
  }
  return NULL;
}

static void *nt_piece_read(void *ud, const char *start, const char *lim, const char *end, const char **stop,
                           size_t *nlines, int *ended) {
  const nt_body *B = ud;
  nt_piece *c = pl_xcalloc(1, sizeof *c);
  c->p = pl_profile_new("ncu-text", B->in->name);
  c->s = pl_xmalloc(sizeof *c->s);
  pl_err_clear(&c->err);
  nt_init(c->s, c->p, &B->wo, &c->err, (size_t)(lim - start));
  tstate *s = c->s;
  pl_lines cl;
  pl_lines_init(&cl, start, (size_t)(end - start));
  cl.base = B->in->data;
  int r = nt_lines(s, &cl, lim, NULL);
  *stop = cl.p;
  *nlines = cl.lineno;
  *ended = 0;
  int ok = 0;
  if (r == NT_AT) ok = block_clean(s, s->at_ind);
  else if (r == NT_NEXT) ok = !in_table(s) && !s->pending;
  if (!ok || s->nlerr > 0) {
    nt_piece_free(c);
    return NULL;
  }
  /* what the next block's first line (or the end) does first */
  rule_flush(s);
  if (s->b.open) pl_ncu_b_end(&s->b);
  pl_ncu_b_flush(&s->b);
  return c;
}

/* The main reader up to the first block at or past upto: 0 there or at
** the input's end, 1 at the --print-summary layout, -1 on failure. */
static int nt_serial(void *ud, pl_lines *c, const char *upto) {
  nt_body *B = ud;
  int r = nt_lines(B->s, c, upto < c->end ? upto : NULL, B->in);
  if (r == NT_FAIL) return -1;
  if (r == NT_SUMMARY) {
    B->summary = 1;
    return 1;
  }
  return 0;
}

/* Piece c appended to the main reader, which stands at its first block
** (nt_lines returned NT_AT there), line_off lines read before it; -1 when
** its state there is not one the piece's fresh reader began from. */
static int nt_merge(void *ud, void *piece, size_t line_off) {
  tstate *s = ((nt_body *)ud)->s;
  nt_piece *c = piece;
  if (!block_clean(s, s->at_ind)) return -1;
  /* ==ERROR== lines of a later launch wait in the main reader's list */
  int64_t next = s->b.nkernels + (s->b.open ? 1 : 0);
  for (size_t i = s->lerri; i < s->nlerr; i++)
    if (s->lerr[i].id >= next) return -1;
  if (!pl_ncu_b_merge_fits(&s->b, &c->s->b)) return -1;
  rule_flush(s); /* what the block's first line does first */
  pl_ncu_b_merge(&s->b, &c->s->b, line_off);
  pl_par_merge_meta(s->p, c->p);
  pl_par_merge_diags(s->p, c->p, line_off);
  if (c->s->report) {
    free(s->report);
    s->report = c->s->report;
    s->nreport = c->s->nreport;
    s->report_line = c->s->report_line + line_off;
    c->s->report = NULL;
  }
  /* the reader's state where the worker stopped (nt_piece_read: one a
  ** block starts from) */
  s->st = ST_TOP;
  s->sec = NULL;
  s->nsec = 0;
  s->prof_id = -1;
  return 0;
}

static const pl_par_body nt_ops = { nt_piece_read, nt_serial, nt_merge, nt_piece_free, nt_first };

static int nt_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  tstate s;
  nt_init(&s, p, o, err, in->len);
  pl_lines c;
  pl_lines_init(&c, in->data, in->len);
  size_t ndiag0 = p->ndiags;
  int jobs = pl_par_jobs(o);
  size_t chunk = o && o->chunk_bytes ? o->chunk_bytes : NT_CHUNK_DEFAULT;
  int r;
  if (jobs >= 2 && in->len >= 2 * chunk) {
    nt_body B;
    memset(&B, 0, sizeof B);
    B.s = &s;
    B.in = in;
    if (o) B.wo = *o;
    B.wo.lenient = 0;
    B.wo.progress = NULL;
    int br = pl_par_body_read(&nt_ops, &B, &c, jobs, chunk, o, in->len, err);
    r = br < 0 ? NT_FAIL : B.summary ? NT_SUMMARY : NT_NEXT;
  } else r = nt_lines(&s, &c, NULL, in);
  if (r == NT_SUMMARY) {
    /* read from the start by its own reader, with what this pass noted dropped */
    pl_ncu_b_free(&s.b);
    nt_free(&s);
    pl_profile_diags_truncate(p, ndiag0);
    return pl_ncu_summary_parse(in, p, o, err);
  }
  if (r != NT_FAIL && nt_finish(&s, &c, in) == 0) {
    nt_free(&s);
    return 0;
  }
  if (s.b.open) {
    pl_row_discard(s.b.k);
    s.b.open = 0;
  }
  pl_ncu_b_free(&s.b);
  nt_free(&s);
  return -1;
}

const pl_format pl_fmt_ncu_text = {
  "ncu-text",
  "Nsight Compute CLI details page (ncu / nv-nsight-cu-cli text output, 2019 on)",
  "kernels metrics rules program_output",
  nt_detect,
  nt_parse,
};

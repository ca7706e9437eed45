/*
** kineto_fast.c -- the Kineto reader's fast path: one event object read
** straight from the bytes (see the comment below), filling kctx.e exactly
** as the tokenizer path of fmt_kineto.c does.
*/
#include "kineto.h"
#include "scan.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- fast path over one event object ------------------------------------
** The tokenizer's pull loop is general; most of a trace is events of one
** shape.  fast_event reads an event object straight from the bytes with
** the same grammar as json.c (same number, string, escape and literal
** rules) and fills k->e exactly as parse_event would.  It only accepts
** what it is sure of: on anything else (a syntax error, NaN/Infinity, a
** field the slow path diagnoses, deep nesting, a value of a shape that the
** slow path reads in its own way) it returns NULL having consumed nothing,
** and the event is read again by parse_event, which gives the same fields,
** errors and diagnostics as before.  Never reads at or past end. */

typedef struct fv {
  pl_json_type t;  /* STR, NUM, TRUE, FALSE, NULL, or OBJ/ARR (not consumed) */
  const char *tok; /* STR: between the quotes; NUM: the text */
  size_t n;
  int esc, isint;
  int64_t ival;
  int ns_ok; /* NUM: ns is pl_json_num_scaled(.., 3, ..) */
  int64_t ns;
} fv;

static const char *fws_run(const char *p, const char *end) {
#if defined(__SSE2__)
  const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), tb = _mm_set1_epi8('\t');
  while (end - p >= 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, nl)),
                              _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, tb)));
    unsigned m = ~(unsigned)_mm_movemask_epi8(ws) & 0xFFFFu;
    if (m) return p + __builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < end && (unsigned char)*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

static inline const char *fws(const char *p, const char *end) {
  if (p < end && (unsigned char)*p > ' ') return p;
  return fws_run(p, end);
}
const char *pl_kin_fws(const char *p, const char *end) { return fws(p, end); }


/* p just after the opening quote: the closing quote, or NULL. */
static inline const char *fstr(const char *p, const char *end, int *esc) {
  const char *bad, *what;
  return pl_json_str_end(p, end, esc, &bad, &what);
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define F_SWAR_DIGITS 1
static const uint64_t F_POW10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
/* The run of decimal digits at the start of the 8 bytes at p (all
** readable): its length (0..8), and its value in *val. */
static inline int f_digits8(const char *p, uint64_t *val) {
  uint64_t w;
  memcpy(&w, p, 8);
  /* a byte is a digit when its high nibble is 3 and adding 6 keeps it so */
  uint64_t m = ((w & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull) |
               (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull);
  uint64_t nz = (((m & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | m) & 0x8080808080808080ull;
  int n = nz ? __builtin_ctzll(nz) >> 3 : 8;
  if (n == 0) {
    *val = 0;
    return 0;
  }
  /* the n digits, most significant first, as the top bytes of d */
  uint64_t d = (w - 0x3030303030303030ull) << (8 * (8 - n));
  d = d * 10 + (d >> 8);
  d = (((d & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
       (((d >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
      32;
  *val = d;
  return n;
}
#endif

/* A number at p as json.c's scan_number reads it (NaN / Infinity: NULL).
** Also its value in ns for a microseconds timestamp when it has the form
** that pl_json_num_scaled(.., 3, ..) reads in its fast path (ns_ok). */
static const char *fnum(const char *p, const char *end, fv *v) {
  const char *s = p;
  int neg = 0;
  if (p < end && *p == '-') {
    neg = 1;
    p++;
  }
  if (p >= end || *p < '0' || *p > '9') return NULL;
  const char *d0 = p;
  uint64_t x = 0;
  int over = 0;
  if (*p == '0') {
    p++;
  } else {
#ifdef F_SWAR_DIGITS
    while (end - p >= 8 && p - d0 < 16) {
      uint64_t val;
      int n = f_digits8(p, &val);
      x = x * F_POW10[n] + val;
      p += n;
      if (n < 8) goto int_done;
    }
#endif
    const char *lim = end - d0 > 19 ? d0 + 19 : end; /* 19 digits cannot overflow uint64 */
    while (p < lim && *p >= '0' && *p <= '9') x = x * 10 + (unsigned)(*p++ - '0');
    while (p < end && *p >= '0' && *p <= '9') {
      unsigned d = (unsigned)(*p - '0');
      if (x > (UINT64_MAX - d) / 10) over = 1;
      else x = x * 10 + d;
      p++;
    }
  }
#ifdef F_SWAR_DIGITS
int_done:;
#endif
  size_t nint = (size_t)(p - d0);
  int isint = 1, nfrac = 0;
  uint64_t frac = 0;
  if (p < end && *p == '.') {
    p++;
    if (p >= end || *p < '0' || *p > '9') return NULL;
    const char *f0 = p;
#ifdef F_SWAR_DIGITS
    if (end - p >= 8) {
      uint64_t val;
      int n = f_digits8(p, &val);
      p += n;
      if (n <= 3) frac = val;
      if (n == 8)
        while (p < end && *p >= '0' && *p <= '9') p++;
    } else
#endif
    {
      while (p < end && *p >= '0' && *p <= '9') p++;
      if (p - f0 <= 3)
        for (const char *q = f0; q < p; q++) frac = frac * 10 + (unsigned)(*q - '0');
    }
    nfrac = (int)(p - f0);
    isint = 0;
  }
  int expo = 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (p >= end || *p < '0' || *p > '9') return NULL;
    while (p < end && *p >= '0' && *p <= '9') p++;
    isint = 0;
    expo = 1;
  }
  v->t = PL_JSON_NUM;
  v->tok = s;
  v->n = (size_t)(p - s);
  v->esc = 0;
  v->isint = 0;
  v->ival = 0;
  v->ns_ok = 0;
  if (isint && !over) {
    if (!neg && x <= (uint64_t)INT64_MAX) {
      v->isint = 1;
      v->ival = (int64_t)x;
    } else if (neg && x <= (uint64_t)INT64_MAX + 1) {
      v->isint = 1;
      v->ival = x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x;
    }
  } else if (!isint && !expo && nint <= 16 && nfrac <= 3) {
    /* int digits <= 16: x is exact (no overflow) */
    uint64_t ns = x * 1000 + frac * (nfrac == 1 ? 100 : nfrac == 2 ? 10 : 1);
    if (ns <= (uint64_t)INT64_MAX) {
      v->ns_ok = 1;
      v->ns = neg ? -(int64_t)ns : (int64_t)ns;
    }
  }
  return p;
}

/* A value at p (not whitespace): scalars are read (returns the end), an
** object or array only typed (returns p, still at its bracket). */
static const char *fval(const char *p, const char *end, fv *v) {
  if (p >= end) return NULL;
  switch (*p) {
    case '"': {
      const char *q = fstr(p + 1, end, &v->esc);
      if (q == NULL) return NULL;
      v->t = PL_JSON_STR;
      v->tok = p + 1;
      v->n = (size_t)(q - (p + 1));
      return q + 1;
    }
    case '{': v->t = PL_JSON_OBJ; return p;
    case '[': v->t = PL_JSON_ARR; return p;
    case 't':
      if (end - p >= 4 && memcmp(p, "true", 4) == 0) {
        v->t = PL_JSON_TRUE;
        return p + 4;
      }
      return NULL;
    case 'f':
      if (end - p >= 5 && memcmp(p, "false", 5) == 0) {
        v->t = PL_JSON_FALSE;
        return p + 5;
      }
      return NULL;
    case 'n':
      if (end - p >= 4 && memcmp(p, "null", 4) == 0) {
        v->t = PL_JSON_NULL;
        return p + 4;
      }
      return NULL;
    default: return fnum(p, end, v);
  }
}

#define F_MAXDEPTH 32

/* Skips the value at p (checked, as the tokenizer would); its end or NULL. */
static const char *fskip(const char *p, const char *end, int depth) {
  fv v;
  const char *q = fval(p, end, &v);
  if (q == NULL || (v.t != PL_JSON_OBJ && v.t != PL_JSON_ARR)) return q;
  if (depth >= F_MAXDEPTH) return NULL;
  int obj = v.t == PL_JSON_OBJ;
  char close = obj ? '}' : ']';
  p = fws(p + 1, end);
  if (p < end && *p == close) return p + 1;
  for (;;) {
    if (obj) {
      int esc;
      if (p >= end || *p != '"') return NULL;
      q = fstr(p + 1, end, &esc);
      if (q == NULL) return NULL;
      p = fws(q + 1, end);
      if (p >= end || *p != ':') return NULL;
      p = fws(p + 1, end);
    }
    p = fskip(p, end, depth + 1);
    if (p == NULL) return NULL;
    p = fws(p, end);
    if (p >= end) return NULL;
    if (*p == ',') {
      p = fws(p + 1, end);
      continue;
    }
    if (*p == close) return p + 1;
    return NULL;
  }
}

/* fskip that also writes the value compacted as compact_copy does (every
** byte but the whitespace between tokens) while there is room. */
typedef struct fcw {
  char *d, *lim;
  int full;
} fcw;

static inline void fcw_put(fcw *w, const char *s, size_t n) {
  if (w->full || n > (size_t)(w->lim - w->d)) {
    w->full = 1;
    return;
  }
  memcpy(w->d, s, n);
  w->d += n;
}

static const char *fskipc(const char *p, const char *end, int depth, fcw *w) {
  fv v;
  const char *q = fval(p, end, &v);
  if (q == NULL) return NULL;
  if (v.t != PL_JSON_OBJ && v.t != PL_JSON_ARR) {
    fcw_put(w, p, (size_t)(q - p));
    return q;
  }
  if (depth >= F_MAXDEPTH) return NULL;
  int obj = v.t == PL_JSON_OBJ;
  char close = obj ? '}' : ']';
  fcw_put(w, p, 1);
  p = fws(p + 1, end);
  if (p < end && *p == close) {
    fcw_put(w, p, 1);
    return p + 1;
  }
  for (;;) {
    if (obj) {
      int esc;
      if (p >= end || *p != '"') return NULL;
      q = fstr(p + 1, end, &esc);
      if (q == NULL) return NULL;
      fcw_put(w, p, (size_t)(q + 1 - p));
      p = fws(q + 1, end);
      if (p >= end || *p != ':') return NULL;
      fcw_put(w, p, 1);
      p = fws(p + 1, end);
    }
    p = fskipc(p, end, depth + 1, w);
    if (p == NULL) return NULL;
    p = fws(p, end);
    if (p >= end) return NULL;
    if (*p == ',') {
      fcw_put(w, p, 1);
      p = fws(p + 1, end);
      continue;
    }
    if (*p == close) {
      fcw_put(w, p, 1);
      return p + 1;
    }
    return NULL;
  }
}

/* The end of the value v read at p: scalars are done, containers skipped. */
static inline const char *fpast(const char *p, const char *q, const char *end, const fv *v) {
  return v->t == PL_JSON_OBJ || v->t == PL_JSON_ARR ? fskip(p, end, 1) : q;
}

/* tok_sv, tok_int, tok_num on a fast value. */
static sv fsv(kctx *k, const fv *v) {
  sv s;
  s.set = 1;
  if (v->t == PL_JSON_STR && v->esc) {
    size_t off = k->scratch.len;
    pl_json_unescape(v->tok, v->n, &k->scratch);
    s.off = off;
    s.n = (uint32_t)(k->scratch.len - off);
    s.scratch = 1;
  } else {
    s.off = (size_t)(v->tok - k->in->data);
    s.n = (uint32_t)v->n;
    s.scratch = 0;
  }
  return s;
}

static int64_t fint(const fv *v) {
  int64_t x;
  if (v->t == PL_JSON_NUM) {
    if (v->isint) return v->ival;
    if (pl_json_num_scaled(v->tok, v->n, 0, 0, 0, &x) == 0) return x;
  } else if (v->t == PL_JSON_STR && !v->esc) {
    const char *s = v->tok;
    size_t n = v->n;
    pl_trim(&s, &n);
    if (pl_json_text_scaled(s, n, 0, &x) == 0) return x;
  }
  return PL_INT_NA;
}

static double fnumv(const fv *v) {
  double d;
  if (v->t == PL_JSON_NUM) {
    if (v->isint) return (double)v->ival;
    if (pl_parse_double(v->tok, v->n, &d) != 0) return NAN;
    return d;
  }
  if (v->t == PL_JSON_STR && !v->esc) {
    if (v->n == 3 && memcmp(v->tok, "inf", 3) == 0) return INFINITY;
    if (pl_parse_double(v->tok, v->n, &d) == 0) return d;
  }
  return NAN;
}

/* After a member's value: ',' then the next key's quote (returned), or '}'
** (*done set, returns just past it); NULL on anything else. */
static inline const char *fnext(const char *p, const char *end, int *done) {
  if (p >= end) return NULL;
  if (*p != ',' && *p != '}') {
    p = fws_run(p, end);
    if (p >= end) return NULL;
  }
  if (*p == ',') {
    p++;
    if (end - p >= 2 && *p == ' ' && p[1] == '"') return p + 1;
    p = fws(p, end);
    if (p >= end || *p != '"') return NULL;
    return p;
  }
  if (*p == '}') {
    *done = 1;
    return p + 1;
  }
  return NULL;
}

/* A member name at p (its opening quote), the ':' and the whitespace
** after it: the start of the value, or NULL. */
static inline const char *fkey(const char *p, const char *end, fv *key) {
  if (p >= end || *p != '"') return NULL;
  const char *q = fstr(p + 1, end, &key->esc);
  if (q == NULL) return NULL;
  key->t = PL_JSON_STR;
  key->tok = p + 1;
  key->n = (size_t)(q - (p + 1));
  q++;
  if (q < end && *q == ':') q++;
  else {
    q = fws(q, end);
    if (q >= end || *q != ':') return NULL;
    q++;
  }
  if (end - q >= 2 && *q == ' ' && (unsigned char)q[1] > ' ') return q + 1;
  return fws(q, end);
}

/* fval where a string or a number is the likely value. */
static inline const char *fval_str(const char *p, const char *end, fv *v) {
  if (p < end && *p == '"') {
    const char *q = fstr(p + 1, end, &v->esc);
    if (q == NULL) return NULL;
    v->t = PL_JSON_STR;
    v->tok = p + 1;
    v->n = (size_t)(q - (p + 1));
    return q + 1;
  }
  return fval(p, end, v);
}

static inline const char *fval_num(const char *p, const char *end, fv *v) {
#ifdef F_SWAR_DIGITS
  /* the common shapes inline: a short integer (not 0-led), or one with up
  ** to 3 fraction digits (a duration in us); else fnum reads it the same */
  if (end - p >= 8 && *p >= '0' && *p <= '9') {
    uint64_t x;
    int n = f_digits8(p, &x);
    if (*p == '0' && n != 1) goto slow; /* 0-led: as fnum reads it */
    if (n == 8 && end - p >= 16) {
      /* up to 15 digits (a timestamp in us): exact in x */
      uint64_t y;
      int n2 = f_digits8(p + 8, &y);
      x = x * F_POW10[n2] + y;
      n += n2;
    }
    /* n < 8, or 9..16 digits with the byte after them readable and not a
    ** digit (16 digits: x < 1e16, exact; ns checked below) */
    if (n < 8 || (n > 8 && (n < 16 || (end - p > 16 && (p[16] < '0' || p[16] > '9'))))) {
      char c = p[n];
      if (c != '.' && c != 'e' && c != 'E') {
        v->t = PL_JSON_NUM;
        v->tok = p;
        v->n = (size_t)n;
        v->esc = 0;
        v->isint = 1;
        v->ival = (int64_t)x;
        v->ns_ok = 0;
        return p + n;
      }
      const char *f = p + n + 1;
      if (c == '.' && end - f >= 8) {
        uint64_t fr;
        int m = f_digits8(f, &fr);
        if (m >= 1 && m < 8 && f[m] != 'e' && f[m] != 'E' && (m > 3 || x < 9000000000000000ull)) {
          v->t = PL_JSON_NUM;
          v->tok = p;
          v->n = (size_t)(f + m - p);
          v->esc = 0;
          v->isint = 0;
          v->ival = 0;
          v->ns_ok = 0;
          if (m <= 3) {
            v->ns_ok = 1;
            v->ns = (int64_t)(x * 1000 + fr * (m == 1 ? 100 : m == 2 ? 10 : 1));
          }
          return f + m;
        }
      }
    }
  }
slow:
#endif
  if (p < end && ((*p >= '0' && *p <= '9') || *p == '-')) return fnum(p, end, v);
  return fval(p, end, v);
}

/* read_dim3 at p ('['). */
static const char *fdim3(const char *p, const char *end, int64_t out[3], int *has) {
  int i = 0;
  p = fws(p + 1, end);
  if (p < end && *p == ']') {
    p++;
    goto done;
  }
  for (;;) {
    fv v;
    const char *q = fval_num(p, end, &v);
    if (q == NULL) return NULL;
    if (v.t == PL_JSON_NUM && i < 3) out[i] = fint(&v);
    p = fpast(p, q, end, &v);
    if (p == NULL) return NULL;
    i++;
    if (p < end && *p != ',' && *p != ']') p = fws_run(p, end);
    if (p >= end) return NULL;
    if (*p == ',') {
      p = fws(p + 1, end);
      continue;
    }
    if (*p == ']') {
      p++;
      break;
    }
    return NULL;
  }
done:
  if (i == 3) *has = 1;
  return p;
}

static inline void add_ctr(kev *e, sv key, sv val, const fv *v) {
  if (e->nctr == e->capctr) {
    e->capctr = e->capctr ? e->capctr * 2 : 16;
    e->ctr = pl_xrealloc(e->ctr, e->capctr * sizeof *e->ctr);
  }
  ctrarg *c = &e->ctr[e->nctr++];
  c->key = key;
  c->val = val;
  c->isint = v->isint;
  c->ival = v->ival;
}

/* parse_args from just past the '{' of "args"; returns the end of the object. */
static const char *fast_args(kctx *k, const char *p, const char *end) {
  kev *e = &k->e;
  p = fws(p, end);
  if (p >= end) return NULL;
  if (*p == '}') return p + 1;
  for (;;) {
    /* p at the key's quote */
    fv key, v;
    const char *vs = fkey(p, end, &key), *q;
    if (vs == NULL) return NULL;
    sv keysv = fsv(k, &key);
    const char *kp = key.tok;
    /* the keys read with tok_int / tok_num: the slow path leaves a
    ** container value half read; let it */
#define FINT(dst)                                                                                                      \
  do {                                                                                                                 \
    q = fval_num(vs, end, &v);                                                                                         \
    if (q == NULL || v.t == PL_JSON_OBJ || v.t == PL_JSON_ARR) return NULL;                                            \
    dst = fint(&v);                                                                                                    \
  } while (0)
#define FNUM(dst)                                                                                                      \
  do {                                                                                                                 \
    q = fval_num(vs, end, &v);                                                                                         \
    if (q == NULL || v.t == PL_JSON_OBJ || v.t == PL_JSON_ARR) return NULL;                                            \
    dst = fnumv(&v);                                                                                                   \
  } while (0)
#define FANY()                                                                                                         \
  do {                                                                                                                 \
    q = fval(vs, end, &v);                                                                                             \
    if (q == NULL) return NULL;                                                                                        \
  } while (0)
    const argdef *a = key.esc ? NULL : arg_find(kp, key.n);
    int handled = a != NULL;
    if (a) switch (a->kind) {
        case AK_INT: FINT(ARG_INT(e, a)); break;
        case AK_NUM: FNUM(ARG_NUM(e, a)); break;
        case AK_GRID:
          FANY();
          q = v.t == PL_JSON_ARR ? fdim3(vs, end, e->grid, &e->has_grid) : fpast(vs, q, end, &v);
          break;
        case AK_BLOCK:
          FANY();
          q = v.t == PL_JSON_ARR ? fdim3(vs, end, e->block, &e->has_block) : fpast(vs, q, end, &v);
          break;
        case AK_KIND:
          FANY();
          if (v.t == PL_JSON_STR) e->kind = fsv(k, &v);
          else q = fpast(vs, q, end, &v);
          break;
        case AK_ARGNAME:
          FANY();
          if (v.t == PL_JSON_STR) e->argname = fsv(k, &v);
          else q = fpast(vs, q, end, &v);
          break;
        case AK_DIMS:
        case AK_TYPES:
        case AK_STRIDES:
        case AK_CONCRETE: {
          /* skipped and compacted in one pass (compact_copy when long) */
          sv *dst = a->kind == AK_DIMS      ? &e->dims
                    : a->kind == AK_TYPES   ? &e->types
                    : a->kind == AK_STRIDES ? &e->strides
                                            : &e->concrete;
          size_t off = k->scratch.len;
          pl_buf_reserve(&k->scratch, 1024 + 1);
          fcw w = { k->scratch.data + off, k->scratch.data + off + 1024, 0 };
          q = fskipc(vs, end, 1, &w);
          if (q == NULL) return NULL;
          if (w.full) pl_kin_compact_copy(k, vs, q, dst);
          else {
            *w.d = '\0';
            k->scratch.len = (size_t)(w.d - k->scratch.data);
            dst->off = off;
            dst->n = (uint32_t)(k->scratch.len - off);
            dst->set = 1;
            dst->scratch = 1;
          }
          break;
        }
        default: handled = 0; break;
      }
#undef FINT
#undef FNUM
#undef FANY
    if (!handled) {
      /* numbers are kept for counter events and profiler ranges */
      q = fval_num(vs, end, &v);
      if (q == NULL) return NULL;
      if (v.t == PL_JSON_NUM) add_ctr(e, keysv, fsv(k, &v), &v);
      else q = fpast(vs, q, end, &v);
    }
    if (q == NULL) return NULL;
    int done = 0;
    p = fnext(q, end, &done);
    if (p == NULL) return NULL;
    if (done) return p;
  }
}

/* parse_event from just past the event's '{'; returns the end of the
** object, or NULL (nothing consumed: read it with parse_event). */
const char *pl_kin_fast_event(kctx *k, const char *p) {
  const char *end = k->j.end;
  kev *e = &k->e;
  {
    ctrarg *ctr = e->ctr;
    size_t cap = e->capctr;
    *e = k->e0;
    e->ctr = ctr;
    e->capctr = cap;
  }
  k->scratch.len = 0;
  p = fws(p, end);
  if (p >= end || *p != '"') return NULL; /* {} and errors: the slow path */
  for (;;) {
    fv key, v;
    const char *vs = fkey(p, end, &key), *q;
    if (vs == NULL) return NULL;
    const char *kp = key.tok;
    ev_key which = key.esc ? EK_OTHER : ev_key_of(kp, key.n);
    switch (which) {
      case EK_PH:
        q = fval_str(vs, end, &v);
        if (q == NULL || v.t != PL_JSON_STR) return NULL;
        e->ph = fsv(k, &v);
        break;
      case EK_TS:
      case EK_DUR: {
        int64_t *dst = which == EK_TS ? &e->ts : &e->dur;
        q = fval_num(vs, end, &v);
        if (q == NULL) return NULL;
        if (v.t == PL_JSON_NUM) {
          if (v.ns_ok) *dst = v.ns;
          else if (pl_json_num_scaled(v.tok, v.n, v.isint, v.ival, 3, dst) != 0) return NULL;
        } else if (v.t != PL_JSON_NULL) return NULL;
        break;
      }
      case EK_ID:
        q = fval_num(vs, end, &v);
        if (q == NULL) return NULL;
        if (v.t == PL_JSON_NUM) e->flow_id = fint(&v);
        else q = fpast(vs, q, end, &v);
        break;
      case EK_CAT:
      case EK_NAME:
        q = fval_str(vs, end, &v);
        if (q == NULL) return NULL;
        if (v.t == PL_JSON_STR || (which == EK_NAME && v.t == PL_JSON_NUM))
          *(which == EK_CAT ? &e->cat : &e->name) = fsv(k, &v);
        else q = fpast(vs, q, end, &v);
        break;
      case EK_PID:
      case EK_TID:
        q = fval_num(vs, end, &v);
        if (q == NULL) return NULL;
        if (v.t == PL_JSON_STR || v.t == PL_JSON_NUM) *(which == EK_PID ? &e->pid : &e->tid) = fsv(k, &v);
        else q = fpast(vs, q, end, &v);
        break;
      case EK_ARGS:
        if (vs < end && *vs == '{') q = fast_args(k, vs + 1, end);
        else {
          q = fval(vs, end, &v);
          if (q) q = fpast(vs, q, end, &v);
        }
        break;
      default:
        q = fval(vs, end, &v);
        if (q) q = fpast(vs, q, end, &v);
    }
    if (q == NULL) return NULL;
    int done = 0;
    p = fnext(q, end, &done);
    if (p == NULL) return NULL;
    if (done) return p;
  }
}

/*
** kineto_stream.c -- a gzipped Kineto trace read while it is inflated.
**
** gzstream.c inflates the file on a thread of its own into a ring of
** chunks; the reader here sees a window of the text (k->in) that slides
** along it.  The reader itself is the one-thread reader of fmt_kineto.c:
** it only asks, before it reads the next token, top-level member or event
** (pl_kin_need), that the window hold it whole.  A value cut by the
** window's end is found by a cheap scan (brackets and strings, nothing
** else); then the window drops what the reader has passed and takes the
** next chunk, the cut value moving in front of it.  The fast path reads
** events up to the window's end by itself (it declines a cut one, having
** consumed nothing), so the scan runs once a chunk, and on the events the
** fast path declines.  Malformed text is left to the reader: the scan
** calls anything it does not understand whole, and the reader's errors
** are those of the whole-text read, line and column counting the dropped
** text (pl_json_drop).  When the read fails, the rest of the stream is
** inflated: a damaged or cut gzip stream is the error, as it is when the
** file is inflated whole first.
*/
#include "kineto.h"
#include "gzstream.h"

#include <stdlib.h>
#include <string.h>

struct kstream {
  pl_gzs *s;
  pl_input in;
  int eof; /* the stream has ended: the window holds the rest */
};

static const char *ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

/* Past the closing quote of the string whose body starts at p, or NULL. */
static const char *str_past(const char *p, const char *end) {
  int esc;
  const char *bad, *what;
  const char *q = pl_json_str_end(p, end, &esc, &bad, &what);
  if (q) return q + 1;
  if (bad >= end || end - bad < 6) return NULL; /* cut (maybe inside an escape) */
  return bad + 1;                               /* a bad escape: the reader says so */
}

static int delim(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ',' || c == '}' || c == ']' || c == ':' || c == '{' ||
         c == '[' || c == '"';
}

/* Past the value at p (whitespace first), or NULL when the window ends
** first.  Not a validator: what it does not understand it calls whole. */
static const char *scan_value(const char *p, const char *end) {
  p = ws(p, end);
  if (p >= end) return NULL;
  char c = *p;
  if (c == '{' || c == '[') {
    size_t depth = 0;
    while (p < end) {
      c = *p;
      if (c == '"') {
        p = str_past(p + 1, end);
        if (p == NULL) return NULL;
        continue;
      }
      if (c == '{' || c == '[') depth++;
      else if ((c == '}' || c == ']') && --depth == 0) return p + 1;
      p++;
    }
    return NULL;
  }
  if (c == '"') return str_past(p + 1, end);
  if (c == '}' || c == ']' || c == ',' || c == ':') return p + 1;
  while (p < end && !delim(*p)) p++; /* a number or literal: a delimiter after it */
  return p < end ? p : NULL;
}

/* Is what the reader needs next whole in [p, end)? */
static int whole(int what, const char *p, const char *end) {
  switch (what) {
    case KN_TOKEN: {
      p = ws(p, end);
      if (p < end && (*p == '{' || *p == '[')) return 1;
      return scan_value(p, end) != NULL;
    }
    case KN_ELEMENT:
      p = ws(p, end);
      if (p < end && *p == ',') p++;
      return scan_value(p, end) != NULL;
    case KN_MEMBER: {
      p = ws(p, end);
      if (p < end && *p == ',') p = ws(p + 1, end);
      if (p >= end) return 0;
      if (*p != '"') return 1; /* '}', or an error the reader reports */
      const char *k = p + 1, *q = str_past(k, end);
      if (q == NULL) return 0;
      int events = q - k == 12 && memcmp(k, "traceEvents\"", 12) == 0;
      q = ws(q, end);
      if (q >= end) return 0;
      if (*q != ':') return 1;
      q = ws(q + 1, end);
      if (q >= end) return 0;
      if (events && *q == '[') return 1;
      return scan_value(q, end) != NULL;
    }
    default: /* KN_REST: something not blank, or the end of the stream */ return ws(p, end) < end;
  }
}

/* The window drops what the reader has passed and takes the next chunk:
** 1, 0 at the stream's end, -1 (k->err set). */
static int refill(kctx *k) {
  struct kstream *ks = k->ks;
  pl_json *j = &k->j;
  const char *keep = j->p;
  pl_json_drop(j, keep);
  int r = pl_gzs_more(ks->s, (size_t)(keep - ks->in.data), k->err);
  if (r <= 0) return r;
  size_t len, off;
  const char *d = pl_gzs_data(ks->s, &len, &off);
  pl_json_move(j, d, len);
  ks->in.data = d;
  ks->in.len = len;
  k->in_off = off;
  return 1;
}

int pl_kin_need_stream(kctx *k, int what) {
  struct kstream *ks = k->ks;
  while (!ks->eof && !whole(what, k->j.p, k->j.end)) {
    /* the window at least doubled before the next scan: a value many
    ** chunks long is scanned a few times, not once a chunk */
    size_t want = 2 * (size_t)(k->j.end - k->j.p) + 1;
    do {
      int r = refill(k);
      if (r < 0) return -1;
      if (r == 0) ks->eof = 1;
    } while (!ks->eof && (size_t)(k->j.end - k->j.p) < want);
  }
  return 0;
}

pl_gzs *pl_kin_gzs(const kctx *k) { return k->ks ? k->ks->s : NULL; }

int pl_kin_stream_skip(kctx *k, size_t stop, size_t nl, size_t tail) {
  struct kstream *ks = k->ks;
  pl_json *j = &k->j;
  size_t from = pl_kin_pos(k, j->p);
  pl_json_drop(j, j->p);
  int r = pl_gzs_seek(ks->s, stop, k->err);
  if (r <= 0) {
    if (r == 0) pl_err_set(k->err, 0, 0, "gzip stream ends early");
    return -1;
  }
  /* the lines of the text skipped, as pl_json_drop would count them */
  j->line0 += nl;
  j->col0 = nl ? tail : j->col0 + (stop - from);
  size_t len, off;
  const char *d = pl_gzs_data(ks->s, &len, &off);
  j->p = j->base;
  pl_json_move(j, d, len);
  ks->in.data = d;
  ks->in.len = len;
  k->in_off = off;
  pl_json_close_at(j, d);
  j->tok = NULL; /* close_at's token, the '}' before the window */
  return 0;
}

size_t pl_kin_total(kctx *k) {
  if (!k->ks) return k->in->len;
  size_t in_done, in_total, out;
  pl_gzs_progress(k->ks->s, &in_done, &in_total, &out);
  if (k->ks->eof || in_done == 0) return out;
  /* the inflated bytes so far, scaled by the compressed bytes left */
  double est = (double)out * (double)in_total / (double)in_done;
  return est > (double)out ? (size_t)est : out;
}

int pl_kin_parse_stream(pl_gzs *s, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_kin_arg_ranges();
  struct kstream ks;
  memset(&ks, 0, sizeof ks);
  ks.s = s;
  ks.in.name = p->source;
  ks.in.data = pl_gzs_data(s, &ks.in.len, NULL);
  kctx *k = pl_kin_ctx_new(&ks.in, p, o, err);
  k->ks = &ks;
  int rc = pl_kin_read(k);
  int stopped = o && o->interrupt && __atomic_load_n(o->interrupt, __ATOMIC_RELAXED);
  if (rc != 0 && !ks.eof && !stopped) { /* (interrupted: at once) */
    /* a damaged stream is the error, not the text it cut */
    pl_err e;
    pl_err_clear(&e);
    int r;
    do {
      size_t len;
      pl_gzs_data(s, &len, NULL);
      r = pl_gzs_more(s, len, &e);
    } while (r > 0);
    if (r < 0) {
      pl_err_set(err, 0, 0, "%s", e.msg);
      err->offset = e.offset;
    }
  }
  if (o && o->progress && rc == 0) {
    size_t t = pl_kin_total(k);
    o->progress(o->progress_ud, t, t);
  }
  pl_kin_ctx_free(k);
  return rc;
}

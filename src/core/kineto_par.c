/*
** kineto_par.c -- the traceEvents array of one Kineto trace read on several
** threads, into tables identical to those of the one-thread read.
**
** The array is cut into pieces of chunk_bytes at guessed offsets.  Each
** piece after the first starts at the first '{' past its guess that
** follows "}," (whitespace aside): where an event may start.  A guess may
** be wrong (the bytes can sit inside a string, or in an array of objects
** nested in an event), so it is never trusted.  Workers read their pieces
** with the fast path only, each into a context of its own (its own string
** pool and tables), up to the first event at or past the next guess, or up
** to anything the fast path declines.
**
** The main thread reads the first piece itself with the full reader, then
** walks the array in file order.  Where its position is exactly a piece's
** start, the piece began on a true event boundary: its rows are appended
** to the main tables, its strings re-interned in the order the piece first
** met them (so that every id is the one a one-thread read gives), and the
** reading goes on from where the worker stopped.  Where the worker stopped
** short (an event the fast path declines, an error) or the position is not
** the piece's start (a wrong guess), the main thread reads on itself with
** the full reader: its errors, diagnostics and --lenient rules are those
** of the one-thread read because it is that read.
**
** State carried from event to event is merged in order: counts, the first
** timestamp, AMD launch records, rocprof's process names.  One piece
** cannot be merged as read: events without a category after a rocprof
** process-name event in an earlier piece (their class comes from it); the
** main thread reads such a piece itself.
*/
#include "kineto.h"
#include "par.h"
#include "pl_util.h"

#include <stdlib.h>
#include <string.h>

#define PAR_CHUNK_DEFAULT (4u << 20)

typedef struct piece {
  const char *guess; /* the guessed offset */
  const char *start; /* its first event's '{' (NULL: no candidate before the next guess) */
  const char *stop;  /* just past the last event read */
  size_t nread;      /* events read */
  kctx *k;           /* its context, once read */
} piece;

typedef struct par {
  kctx *main;
  const char *arr, *end; /* the array's contents (from past its '['), the input's end */
  piece *pc;
  size_t n;
} par;

/* Pieces merged as read and pieces read again by the main thread, since
** the process started (tests check that the parallel path ran). */
static size_t n_merged, n_reread;
void pl_kineto_par_counts(size_t *merged, size_t *reread) {
  *merged = __atomic_load_n(&n_merged, __ATOMIC_RELAXED);
  *reread = __atomic_load_n(&n_reread, __ATOMIC_RELAXED);
}

static int is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* The first '{' in [p, stop) preceded by ',' and '}' (whitespace aside,
** never looking before lo), or NULL. */
static const char *find_start(const char *p, const char *stop, const char *lo) {
  while (p < stop) {
    const char *b = memchr(p, '{', (size_t)(stop - p));
    if (b == NULL) return NULL;
    const char *q = b;
    while (q > lo && is_ws(q[-1])) q--;
    if (q > lo && q[-1] == ',') {
      q--;
      while (q > lo && is_ws(q[-1])) q--;
      if (q > lo && q[-1] == '}') return b;
    }
    p = b + 1;
  }
  return NULL;
}

/* A worker's read of piece i: fast path only, into a context of its own. */
static void read_piece(pl_par *S, void *ud, size_t i) {
  par *P = ud;
  piece *c = &P->pc[i];
  const kctx *m = P->main;
  const char *limit = i + 1 < P->n ? P->pc[i + 1].guess : NULL;
  kctx *k = pl_kin_ctx_new(m->in, NULL, m->o, NULL);
  c->start = find_start(c->guess, limit ? limit : P->end, P->arr);
  c->stop = c->start;
  c->nread = 0;
  if (c->start) {
    const char *r = c->start, *end = P->end;
    for (;;) {
      const char *q = pl_kin_fast_event(k, r + 1);
      if (q == NULL) break;
      pl_kin_emit_event(k);
      c->stop = q;
      c->nread++;
      r = pl_kin_fws(q, end);
      if (r >= end || *r != ',') break;
      r = pl_kin_fws(r + 1, end);
      if (r >= end || *r != '{' || (limit && r >= limit)) break;
      if ((c->nread & 4095) == 0 && pl_par_aborted(S)) break;
    }
  }
  c->k = k;
}

/* Can piece context c be appended as read?  Not when its events without a
** category would have taken their class from an earlier piece's rocprof
** process names. */
static int piece_fits(const kctx *k, const kctx *c) {
  return !(k->nrp > 0 && c->nevents > c->ncat) && !pl_devwork_dropped(c->dw);
}

static void merge(kctx *k, kctx *c) {
  uint32_t *map = pl_par_pool_map(k->pool, c->pool);
  tcols *dst[] = { &k->ev, &k->kn, &k->cpu, &k->rt, &k->mc, &k->ms, &k->st, &k->ct, &k->mem, &k->pr, &k->th };
  tcols *src[] = { &c->ev, &c->kn, &c->cpu, &c->rt, &c->mc, &c->ms, &c->st, &c->ct, &c->mem, &c->pr, &c->th };
  for (size_t i = 0; i < sizeof dst / sizeof dst[0]; i++) {
    pl_par_append_rows(dst[i]->t, src[i]->t, map);
    dst[i]->room = 0; /* fast_row: look at the columns' room again */
  }
  pl_devwork_merge(k->dw, c->dw, map); /* cannot fail: piece_fits checked its cap */
  free(map);
  k->nevents += c->nevents;
  k->nmeta_events += c->nmeta_events;
  k->nother += c->nother;
  k->ncat += c->ncat;
  k->napi_named += c->napi_named;
  if (c->min_ts < k->min_ts) k->min_ts = c->min_ts;
  if (c->nlaunch) {
    k->launch = pl_xrealloc(k->launch, (k->nlaunch + c->nlaunch) * sizeof *k->launch);
    memcpy(k->launch + k->nlaunch, c->launch, c->nlaunch * sizeof *k->launch);
    k->nlaunch += c->nlaunch;
    k->caplaunch = k->nlaunch;
  }
  if (c->nrp) {
    k->rp = pl_xrealloc(k->rp, (k->nrp + c->nrp) * sizeof *k->rp);
    memcpy(k->rp + k->nrp, c->rp, c->nrp * sizeof *k->rp);
    k->nrp += c->nrp;
  }
}

int pl_kin_events_par(kctx *k) {
  const pl_parse_opts *o = k->o;
  int jobs = o && o->jobs > 0 ? o->jobs : pl_par_cores();
  size_t chunk = o && o->chunk_bytes ? o->chunk_bytes : PAR_CHUNK_DEFAULT;
  const char *arr = k->j.p, *end = k->j.end;
  if (k->ks) return 1; /* a stream: the other core inflates it */
  if (jobs < 2 || end <= arr || (size_t)(end - arr) < 2 * chunk) return 1;
  par P;
  memset(&P, 0, sizeof P);
  P.main = k;
  P.arr = arr;
  P.end = end;
  P.n = ((size_t)(end - arr) + chunk - 1) / chunk;
  P.pc = pl_xcalloc(P.n, sizeof *P.pc);
  for (size_t i = 0; i < P.n; i++) P.pc[i].guess = arr + i * chunk;
  pl_par *S = pl_par_start(P.n, jobs, read_piece, &P);
  int rc;
  size_t m = 0; /* the piece the main thread is in */
  for (;;) {
    const char *at = NULL;
    rc = pl_kin_events_until(k, m + 1 < P.n ? P.pc[m + 1].guess : NULL, &at);
    if (rc != 1) break;
    /* at: a true event at or past the next guess; the pieces whose guess
    ** it passed (an event longer than a piece) are dropped */
    m++;
    while (m + 1 < P.n && at >= P.pc[m + 1].guess) {
      pl_par_wait(S, m);
      pl_kin_ctx_free(P.pc[m].k);
      P.pc[m].k = NULL;
      m++;
    }
    pl_par_wait(S, m);
    piece *c = &P.pc[m];
    if (c->start == at && c->nread > 0 && piece_fits(k, c->k)) {
      merge(k, c->k);
      /* the tokenizer past the piece's events, as if it had read them */
      if (pl_json_next(&k->j) != PL_JSON_OBJ) {
        rc = -1;
        break;
      } /* at is a '{' after ',': cannot fail */
      pl_json_close_at(&k->j, c->stop);
      __atomic_add_fetch(&n_merged, 1, __ATOMIC_RELAXED);
    } else __atomic_add_fetch(&n_reread, 1, __ATOMIC_RELAXED);
    pl_kin_ctx_free(c->k);
    c->k = NULL;
    pl_par_done(S, m);
    if ((size_t)(k->j.p - k->in->data) >= k->next_progress && pl_kin_progress(k)) {
      rc = -1;
      break;
    }
  }
  pl_par_stop(S);
  for (size_t i = 0; i < P.n; i++) pl_kin_ctx_free(P.pc[i].k);
  free(P.pc);
  return rc;
}

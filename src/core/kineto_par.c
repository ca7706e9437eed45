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
#include "pl_util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAR_CHUNK_DEFAULT (1u << 20)

typedef struct piece {
  const char *guess; /* the guessed offset */
  const char *start; /* its first event's '{' (NULL: no candidate before the next guess) */
  const char *stop;  /* just past the last event read */
  size_t nread;      /* events read */
  kctx *k;           /* its context, once read */
  int state;         /* 0 free, 1 claimed, 2 read */
} piece;

typedef struct par {
  kctx *main;
  const char *arr, *end; /* the array's contents (from past its '['), the input's end */
  piece *pc;
  size_t n;
  size_t next_claim; /* pieces 1..n-1 are claimed in order */
  size_t merged;     /* pieces up to here are merged or read again */
  size_t window;     /* pieces claimed at most this far past merged */
  kctx **spare;      /* contexts done with, their column buffers for the next pieces (mu) */
  size_t nspare;
  int abort;
  pthread_mutex_t mu;
  pthread_cond_t cv;
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

#define NTC 11
static void tcols_of(kctx *k, tcols *out[NTC]) {
  tcols *all[NTC] = { &k->ev, &k->kn, &k->cpu, &k->rt, &k->mc, &k->ms, &k->st, &k->ct, &k->mem, &k->pr, &k->th };
  memcpy(out, all, sizeof all);
}

/* A piece's context done with: kept for its column buffers. */
static void piece_done(par *P, kctx *k) {
  if (!k) return;
  pthread_mutex_lock(&P->mu);
  P->spare[P->nspare++] = k;
  pthread_mutex_unlock(&P->mu);
}

/* A new piece context, with the column buffers of one done with where
** there is one: its pages are already in (no page faults, no fresh
** memory for each piece) and likely still in cache.  Everything else of
** the context is new. */
static kctx *piece_ctx(par *P) {
  const kctx *m = P->main;
  kctx *k = pl_kin_ctx_new(m->in, NULL, m->o, NULL), *old = NULL;
  pthread_mutex_lock(&P->mu);
  if (P->nspare) old = P->spare[--P->nspare];
  pthread_mutex_unlock(&P->mu);
  if (!old) return k;
  tcols *a[NTC], *b[NTC];
  tcols_of(k, a);
  tcols_of(old, b);
  for (size_t i = 0; i < NTC; i++) {
    pl_table *t = a[i]->t, *u = b[i]->t;
    if (!t || !u || t->ncols != u->ncols) continue;
    for (size_t j = 0; j < t->ncols; j++) {
      pl_column *x = t->cols[j], *y = u->cols[j];
      if (x->type != y->type || x->len != 0 || x->shared || y->shared) continue;
      void *v = x->v.any;
      size_t cap = x->cap;
      x->v.any = y->v.any;
      x->cap = y->cap;
      y->v.any = v;
      y->cap = cap;
      y->len = 0;
    }
  }
  pl_kin_ctx_free(old);
  return k;
}

/* A worker's read of piece i: fast path only, into a context of its own. */
static void read_piece(par *P, size_t i) {
  piece *c = &P->pc[i];
  const char *limit = i + 1 < P->n ? P->pc[i + 1].guess : NULL;
  kctx *k = piece_ctx(P);
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
      if ((c->nread & 4095) == 0 && __atomic_load_n(&P->abort, __ATOMIC_RELAXED)) break;
    }
  }
  c->k = k;
}

/* The next piece to read (mu held), or 0. */
static size_t claim(par *P) {
  if (__atomic_load_n(&P->abort, __ATOMIC_RELAXED) || P->next_claim >= P->n || P->next_claim > P->merged + P->window)
    return 0;
  size_t i = P->next_claim++;
  P->pc[i].state = 1;
  return i;
}

static void read_claimed(par *P, size_t i) {
  pthread_mutex_unlock(&P->mu);
  read_piece(P, i);
  pthread_mutex_lock(&P->mu);
  P->pc[i].state = 2;
  pthread_cond_broadcast(&P->cv);
}

static void *worker(void *arg) {
  par *P = arg;
  pthread_mutex_lock(&P->mu);
  for (;;) {
    size_t i = claim(P);
    if (i) {
      read_claimed(P, i);
      continue;
    }
    if (__atomic_load_n(&P->abort, __ATOMIC_RELAXED) || P->next_claim >= P->n) break;
    pthread_cond_wait(&P->cv, &P->mu);
  }
  pthread_mutex_unlock(&P->mu);
  return NULL;
}

/* Waits until piece i is read, reading other pieces meanwhile (the
** caller has set merged to i - 1: i is within the window). */
static void wait_read(par *P, size_t i) {
  pthread_mutex_lock(&P->mu);
  while (P->pc[i].state != 2) {
    size_t j = claim(P);
    if (j) read_claimed(P, j);
    else pthread_cond_wait(&P->cv, &P->mu);
  }
  pthread_mutex_unlock(&P->mu);
}

static void set_merged(par *P, size_t m) {
  pthread_mutex_lock(&P->mu);
  P->merged = m;
  pthread_cond_broadcast(&P->cv);
  pthread_mutex_unlock(&P->mu);
}

static size_t elsize(pl_type t) { return t == PL_STR ? 4 : t == PL_BOOL ? 1 : 8; }

/* Appends the rows of s (declared as d: same columns, same types) to d,
** its string ids through map. */
static void append_rows(pl_table *d, const pl_table *s, const uint32_t *map) {
  if (!d || !s || s->nrows == 0) return;
  size_t n0 = d->nrows, add = s->nrows;
  for (size_t i = 0; i < d->ncols; i++) {
    pl_column *dc = d->cols[i];
    const pl_column *sc = s->cols[i];
    pl_column_reserve(dc, n0 + add);
    if (dc->type == PL_STR) {
      for (size_t r = 0; r < add; r++) dc->v.str[n0 + r] = map[sc->v.str[r]];
    } else memcpy((char *)dc->v.any + n0 * elsize(dc->type), sc->v.any, add * elsize(dc->type));
    dc->len = n0 + add;
  }
  d->nrows = n0 + add;
}

/* Can piece context c be appended as read?  Not when its events without a
** category would have taken their class from an earlier piece's rocprof
** process names. */
static int piece_fits(const kctx *k, const kctx *c) {
  return !(k->nrp > 0 && c->nevents > c->ncat) && !pl_devwork_dropped(c->dw);
}

static void merge(kctx *k, kctx *c) {
  size_t n = pl_pool_count(c->pool);
  uint32_t *map = pl_xmalloc((n + 1) * sizeof *map);
  map[0] = 0;
  for (size_t id = 1; id <= n; id++) {
    size_t len;
    const char *s = pl_pool_str(c->pool, (uint32_t)id, &len);
    map[id] = pl_pool_intern(k->pool, s, len);
  }
  tcols *dst[NTC], *src[NTC];
  tcols_of(k, dst);
  tcols_of(c, src);
  for (size_t i = 0; i < NTC; i++) {
    append_rows(dst[i]->t, src[i]->t, map);
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

static int cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (int)n;
}

int pl_kin_events_par(kctx *k) {
  const pl_parse_opts *o = k->o;
  int jobs = o && o->jobs > 0 ? o->jobs : cores();
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
  P.spare = pl_xcalloc(P.n, sizeof *P.spare); /* each piece's context is done with once */
  for (size_t i = 0; i < P.n; i++) P.pc[i].guess = arr + i * chunk;
  P.next_claim = 1;
  P.window = 2 * (size_t)jobs;
  pthread_mutex_init(&P.mu, NULL);
  pthread_cond_init(&P.cv, NULL);
  pthread_t *th = pl_xcalloc((size_t)jobs, sizeof *th);
  int nth = 0;
  for (int t = 1; t < jobs; t++)
    if (pthread_create(&th[nth], NULL, worker, &P) == 0) nth++;
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
      set_merged(&P, m - 1);
      wait_read(&P, m);
      piece_done(&P, P.pc[m].k);
      P.pc[m].k = NULL;
      m++;
    }
    set_merged(&P, m - 1);
    wait_read(&P, m);
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
    piece_done(&P, c->k);
    c->k = NULL;
    set_merged(&P, m);
    if ((size_t)(k->j.p - k->in->data) >= k->next_progress && pl_kin_progress(k)) {
      rc = -1;
      break;
    }
  }
  pthread_mutex_lock(&P.mu);
  __atomic_store_n(&P.abort, 1, __ATOMIC_RELAXED);
  pthread_cond_broadcast(&P.cv);
  pthread_mutex_unlock(&P.mu);
  for (int t = 0; t < nth; t++) pthread_join(th[t], NULL);
  for (size_t i = 0; i < P.n; i++) pl_kin_ctx_free(P.pc[i].k);
  for (size_t i = 0; i < P.nspare; i++) pl_kin_ctx_free(P.spare[i]);
  free(P.spare);
  free(th);
  free(P.pc);
  pthread_mutex_destroy(&P.mu);
  pthread_cond_destroy(&P.cv);
  return rc;
}

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
**
** The pieces' text is the input itself, or a .gz's segments while they
** are inflated (gzstream.h): piece i after the first is then one segment,
** its guess a little before the segment's start (inside the carry the
** slot holds before it, so that the last event, cut by the segment's
** end, is whole in the slot before; the carry holds the bytes find_start
** looks back at).  Positions are stream offsets (for a whole input, from
** its start), the main thread skips a merged piece's text through its
** window (pl_kin_stream_skip, with the newlines the worker counted), and
** a segment the ring no longer holds leaves its piece to the main thread.
*/
#include "kineto.h"
#include "par.h"
#include "pl_util.h"

#include <pthread.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <stdlib.h>
#include <string.h>

#define PAR_CHUNK_DEFAULT (1u << 20)

#define NONE SIZE_MAX
#define NTC  11 /* the tables a piece fills (tcols_of) */

/* Offsets are stream offsets: for a whole input, from its start. */
typedef struct piece {
  size_t start;   /* its first event's '{' (NONE: no candidate before the next guess) */
  size_t stop;    /* just past the last event read */
  size_t nread;   /* events read */
  size_t nl, nlc; /* a stream's: the newlines in [start, stop), the bytes after the last */
  pl_input seg;   /* a stream's: the segment read */
  kctx *k;        /* its context, once read */
  /* merged, for its finish (finish_piece): its string ids in the main
  ** pool's, where its rows go in the main tables, the rows of those to
  ** fault in first */
  uint32_t *map;
  size_t row0[NTC], pop_from[NTC], pop_to[NTC];
} piece;

typedef struct par {
  kctx *main;
  const char *arr, *end; /* whole input: the array's contents (from past its '['), the input's end */
  pl_gzs *gz;            /* or a stream: piece i >= 1 is segment seg0 + i - 1 */
  size_t seg0;
  size_t g1, step; /* piece i >= 1's guess: g1 + (i - 1) * step (piece 0's: the array's start) */
  piece *pc;       /* piece i is pc[i % cap] */
  size_t n, cap;
  kctx **spare; /* contexts done with, their column buffers for the next pieces (mu) */
  size_t nspare, capspare;
  pthread_mutex_t mu;
  pl_par *S;
  int unsynced;        /* pieces given to finish since the last pl_par_sync */
  size_t faulted[NTC]; /* rows of the main tables whose pages a finish faults in */
  int nopop;           /* pl_table_populate failed: stop asking (atomic) */
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

static void tcols_of(kctx *k, tcols *out[NTC]) {
  tcols *all[NTC] = { &k->ev, &k->kn, &k->cpu, &k->rt, &k->mc, &k->ms, &k->st, &k->ct, &k->mem, &k->pr, &k->th };
  memcpy(out, all, sizeof all);
}

/* A piece's context done with: kept for its column buffers. */
static void piece_done(par *P, kctx *k) {
  if (!k) return;
  pthread_mutex_lock(&P->mu);
  if (P->nspare < P->capspare) {
    P->spare[P->nspare++] = k;
    k = NULL;
  }
  pthread_mutex_unlock(&P->mu);
  pl_kin_ctx_free(k);
}

/* A new piece context for input in, with the column buffers of one done
** with where there is one: its pages are already in (no page faults, no
** fresh memory for each piece) and likely still in cache.  Everything
** else of the context is new. */
static kctx *piece_ctx(par *P, const pl_input *in) {
  const kctx *m = P->main;
  kctx *k = pl_kin_ctx_new(in, NULL, m->o, NULL), *old = NULL;
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

/* The input's pages of [a, b) mapped in one call, not by a fault each 16
** pages (a mapped file; a read one's are in already): on this VM a fault
** is dear (a memchr pass over the 1 GB bench trace, 15 k faults: -10 %
** CPU). */
static void populate_text(const char *a, const char *b) {
#if defined(__linux__) && defined(MADV_POPULATE_READ)
  uintptr_t pa = (uintptr_t)a & ~(uintptr_t)4095, pb = (uintptr_t)b & ~(uintptr_t)4095;
  if (pb > pa) (void)madvise((void *)pa, pb - pa, MADV_POPULATE_READ);
#else
  (void)a;
  (void)b;
#endif
}

static piece *pc_at(par *P, size_t i) { return &P->pc[i % P->cap]; }
static size_t guess_of(const par *P, size_t i) { return P->g1 + (i - 1) * P->step; } /* i >= 1 */

/* A worker's read of piece i: fast path only, into a context of its own. */
static void read_piece(pl_par *S, void *ud, size_t i) {
  par *P = ud;
  piece *c = pc_at(P, i);
  const kctx *m = P->main;
  const pl_input *in = m->in;
  size_t base = 0;
  const char *lo = P->arr;
  c->start = c->stop = NONE;
  c->nread = c->nl = c->nlc = 0;
  c->k = NULL;
  if (P->gz) {
    size_t len;
    if (!pl_gzs_seg(P->gz, P->seg0 + i - 1, &c->seg.data, &len, &base)) return; /* the main thread reads it */
    if (pl_par_aborted(S)) {
      pl_gzs_seg_done(P->gz, P->seg0 + i - 1);
      return;
    }
    c->seg.len = len;
    c->seg.name = m->in->name;
    in = &c->seg;
    lo = in->data;
  }
  const char *d = in->data, *end = d + in->len;
  size_t limit = i + 1 < P->n ? guess_of(P, i + 1) : NONE; /* read on to the first event at or past it */
  const char *lim = limit - base < in->len ? d + (limit - base) : end;
  kctx *k = piece_ctx(P, in);
  k->in_off = base;
  size_t g = guess_of(P, i);
  if (!P->gz && g < in->len) populate_text(d + g, lim < end ? lim + 4096 : end);
  const char *s = g - base < in->len ? find_start(d + (g - base), lim, lo) : NULL;
  if (s) {
    const char *r = s, *stop = s;
    for (;;) {
      const char *q = pl_kin_fast_event(k, r + 1);
      if (q == NULL) break;
      pl_kin_emit_event(k);
      stop = q;
      c->nread++;
      r = pl_kin_fws(q, end);
      if (r >= end || *r != ',') break;
      r = pl_kin_fws(r + 1, end);
      if (r >= end || *r != '{' || r >= lim) break;
      if ((c->nread & 4095) == 0 && pl_par_aborted(S)) break;
    }
    c->start = base + (size_t)(s - d);
    c->stop = base + (size_t)(stop - d);
    if (P->gz) { /* the main thread's line numbers count the text it skips */
      const char *last = NULL;
      for (const char *q = s; (q = memchr(q, '\n', (size_t)(stop - q))) != NULL; q++) {
        c->nl++;
        last = q;
      }
      c->nlc = last ? (size_t)(stop - last - 1) : 0;
    }
  }
  c->k = k;
  if (P->gz) pl_gzs_seg_done(P->gz, P->seg0 + i - 1);
}

/* Can piece context c be appended as read?  Not when its events without a
** category would have taken their class from an earlier piece's rocprof
** process names. */
static int piece_fits(const kctx *k, const kctx *c) {
  return !(k->nrp > 0 && c->nevents > c->ncat) && !pl_devwork_dropped(c->dw);
}

/* The main thread's tables may be written (not just claimed rows of):
** the pieces given to finish are finished. */
static void sync_rows(void *ud) {
  par *P = ud;
  if (!P->unsynced) return;
  pl_par_sync(P->S);
  P->unsynced = 0;
}

/* The merge of piece pc as read, on the main thread and in file order:
** its strings interned, its rows claimed in the main tables, the state
** carried from event to event merged.  The copy of its cells is left to
** its finish, on whichever thread is free. */
static void merge(par *P, piece *pc) {
  kctx *k = P->main, *c = pc->k;
  uint32_t *map = pl_par_pool_map(k->pool, c->pool);
  tcols *dst[NTC], *src[NTC];
  tcols_of(k, dst);
  tcols_of(c, src);
  size_t ev0 = k->ev.t ? k->ev.t->nrows : 0; /* the piece's first event row */
  if (c->nwait) {
    k->wait = pl_xrealloc(k->wait, (k->nwait + c->nwait) * sizeof *k->wait);
    for (size_t i = 0; i < c->nwait; i++) {
      k->wait[k->nwait + i] = c->wait[i];
      k->wait[k->nwait + i].row += ev0;
    }
    k->nwait += c->nwait;
    k->capwait = k->nwait;
  }
  for (size_t i = 0; i < NTC; i++) {
    pl_table *d = dst[i]->t, *s = src[i]->t;
    size_t add = s ? s->nrows : 0;
    pc->pop_from[i] = pc->pop_to[i] = 0;
    if (!d || add == 0) continue;
    if (!pl_par_rows_fit(d, add)) sync_rows(P); /* the buffers move */
    size_t n0 = pc->row0[i] = pl_par_claim_rows(d, add);
    dst[i]->room = 0; /* fast_row: look at the columns' room again */
    /* once the columns are sized (pl_kin_progress), the pages of rows to
    ** come are faulted in by a piece's finish, one call a column for
    ** about 4 pieces' rows, 6 pieces ahead: no finish running at the
    ** same time (the next pieces') writes to them meanwhile */
    if (k->reserved && n0 + 6 * add > P->faulted[i] && !__atomic_load_n(&P->nopop, __ATOMIC_RELAXED)) {
      pc->pop_from[i] = n0 > P->faulted[i] ? n0 : P->faulted[i];
      pc->pop_to[i] = P->faulted[i] = n0 + 10 * add + 64;
    }
  }
  pl_devwork_merge(k->dw, c->dw, map); /* cannot fail: piece_fits checked its cap */
  pc->map = map;
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

/* The rest of merged piece i's merge, on any thread: the pages of rows to
** come faulted in, its cells copied into the rows claimed for them, its
** context kept for the next pieces.  It writes only those rows' cells. */
static void finish_piece(pl_par *S, void *ud, size_t i) {
  (void)S;
  par *P = ud;
  piece *pc = pc_at(P, i);
  tcols *dst[NTC], *src[NTC];
  tcols_of(P->main, dst);
  tcols_of(pc->k, src);
  for (size_t t = 0; t < NTC; t++) {
    pl_table *d = dst[t]->t, *s = src[t]->t;
    if (!d || !s || s->nrows == 0) continue;
    if (pc->pop_to[t] > pc->pop_from[t] && pl_table_populate(d, pc->pop_from[t], pc->pop_to[t]) != 0)
      __atomic_store_n(&P->nopop, 1, __ATOMIC_RELAXED);
    pl_par_copy_rows(d, pc->row0[t], s, pc->map);
  }
  free(pc->map);
  pc->map = NULL;
  piece_done(P, pc->k);
  pc->k = NULL;
}

int pl_kin_events_par(kctx *k) {
  const pl_parse_opts *o = k->o;
  int jobs = pl_par_jobs(o);
  size_t chunk = o && o->chunk_bytes ? o->chunk_bytes : PAR_CHUNK_DEFAULT;
  const char *arr = k->j.p, *end = k->j.end;
  par P;
  memset(&P, 0, sizeof P);
  P.main = k;
  size_t window = 2 * (size_t)jobs;
  P.gz = pl_kin_gzs(k);
  if (jobs < 2) return 1;
  if (P.gz) {
    /* a stream: piece i >= 1 is segment seg0 + i - 1, its guess the
    ** segment's start less three quarters of the carry */
    size_t seg, ov;
    int slots;
    pl_gzs_geometry(P.gz, &seg, &ov, &slots);
    size_t slack = ov - ov / 4, a = pl_kin_pos(k, arr);
    if (seg < 128 || slots < 4) return 1;                       /* pieces too small to hold an event */
    if ((size_t)slots - 3 < window) window = (size_t)slots - 3; /* the ring holds what is read ahead */
    P.seg0 = (a + slack) / seg + 1; /* the first segment whose guess is past the array's start */
    P.g1 = P.seg0 * seg - slack;
    P.step = seg;
    P.n = NONE;
    P.cap = window + 2;
  } else {
    if (end <= arr || (size_t)(end - arr) < 2 * chunk) return 1;
    P.arr = arr;
    P.end = end;
    P.n = ((size_t)(end - arr) + chunk - 1) / chunk;
    P.g1 = (size_t)(arr - k->in->data) + chunk;
    P.step = chunk;
    P.cap = P.n;
  }
  P.pc = pl_xcalloc(P.cap, sizeof *P.pc);
  P.capspare = P.cap + 2; /* contexts alive at once: at most the pieces in the ring */
  P.spare = pl_xcalloc(P.capspare, sizeof *P.spare);
  pthread_mutex_init(&P.mu, NULL);
  /* the pages of the rows merged are faulted in by the pieces' finishes
  ** (merge), not by the main thread's pl_kin_progress */
  tcols *all[NTC];
  tcols_of(k, all);
  for (size_t i = 0; i < NTC; i++) all[i]->faulted = SIZE_MAX;
  pl_par *S = P.S = pl_par_start_ring(P.n, jobs, window, read_piece, finish_piece, &P);
  k->before_read = sync_rows;
  k->before_ud = &P;
  int rc;
  size_t m = 0; /* the piece the main thread is in */
  for (;;) {
    size_t at;
    rc = pl_kin_events_until(k, m + 1 < P.n ? guess_of(&P, m + 1) : NONE, &at);
    if (rc != 1) break;
    /* at: a true event at or past the next guess; the pieces whose guess
    ** it passed (an event longer than a piece) are dropped */
    m++;
    while (m + 1 < P.n && at >= guess_of(&P, m + 1)) {
      pl_par_wait(S, m);
      piece_done(&P, pc_at(&P, m)->k);
      pc_at(&P, m)->k = NULL;
      pl_par_done(S, m);
      m++;
    }
    pl_par_wait(S, m);
    piece *c = pc_at(&P, m);
    if (c->start == at && c->nread > 0 && piece_fits(k, c->k)) {
      size_t stop = c->stop, nl = c->nl, nlc = c->nlc;
      merge(&P, c);
      if (P.gz) { /* the inflater needs the other core: the copy stays here */
        finish_piece(S, &P, m);
        pl_par_done(S, m);
      } else {
        pl_par_finish(S, m); /* c is the finish's now */
        P.unsynced = 1;
      }
      __atomic_add_fetch(&n_merged, 1, __ATOMIC_RELAXED);
      /* the tokenizer past the piece's events, as if it had read them */
      if (pl_json_next(&k->j) != PL_JSON_OBJ) {
        rc = -1;
        break;
      } /* at is a '{' after ',': cannot fail */
      if (P.gz) {
        if (pl_kin_stream_skip(k, stop, nl, nlc)) {
          rc = -1;
          break;
        }
      } else pl_json_close_at(&k->j, k->in->data + stop);
    } else {
      __atomic_add_fetch(&n_reread, 1, __ATOMIC_RELAXED);
      piece_done(&P, c->k);
      c->k = NULL;
      pl_par_done(S, m);
    }
    if (pl_kin_pos(k, k->j.p) >= k->next_progress) {
      if (!k->reserved) sync_rows(&P); /* pl_kin_progress sizes the columns: their buffers move */
      if (pl_kin_progress(k)) {
        rc = -1;
        break;
      }
    }
  }
  pl_par_stop(S); /* finishes what is given to finish first */
  k->before_read = NULL;
  k->before_ud = NULL;
  for (size_t i = 0; i < P.cap; i++) {
    pl_kin_ctx_free(P.pc[i].k);
    free(P.pc[i].map);
  }
  for (size_t i = 0; i < P.nspare; i++) pl_kin_ctx_free(P.spare[i]);
  free(P.spare);
  free(P.pc);
  pthread_mutex_destroy(&P.mu);
  return rc;
}

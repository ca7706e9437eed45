/*
** par.c -- one input read on several threads: the schedule of its pieces
** and the merge of a worker's tables into the main thread's (par.h).
** Shared by the Kineto reader (kineto_par.c), the generic CSV table
** (csvread.c) and, through pl_par_body_read, the line-based readers
** (fmt_ncu_text.c, fmt_ncu_csv.c, fmt_kernel_table.c, fmt_nvprof.c).
*/
#include "par.h"
#include "pl_util.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pl_par {
  size_t n;
  size_t next_claim; /* pieces 1..n-1 are claimed in order */
  size_t merged;     /* pieces up to here are merged or read again */
  size_t window;     /* pieces claimed at most this far past merged */
  size_t cap;        /* piece i's state is state[i % cap] */
  int *state;        /* per piece: 0 free, 1 claimed, 2 read, 3 to finish, 4 finishing */
  size_t *fq;        /* the pieces to finish, in the order given (a ring of cap) */
  size_t fq_head, fq_n;
  size_t nfinish; /* pieces to finish or finishing */
  int abort;
  void (*read)(pl_par *P, void *ud, size_t i);
  void (*finish)(pl_par *P, void *ud, size_t i);
  void *ud;
  pthread_t *th;
  int nth;
  pthread_mutex_t mu;
  pthread_cond_t cv;
};

int pl_par_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (int)n;
}

int pl_par_jobs(const pl_parse_opts *o) { return o && o->jobs > 0 ? o->jobs : pl_par_cores(); }

int pl_par_aborted(const pl_par *P) { return __atomic_load_n(&P->abort, __ATOMIC_RELAXED); }

/* The next piece to read (mu held), or 0.  Its slot must be free (a
** piece cap before it may still be finishing). */
static size_t claim(pl_par *P) {
  if (pl_par_aborted(P) || P->next_claim >= P->n || P->next_claim > P->merged + P->window ||
      P->state[P->next_claim % P->cap] != 0)
    return 0;
  size_t i = P->next_claim++;
  P->state[i % P->cap] = 1;
  return i;
}

static void read_claimed(pl_par *P, size_t i) {
  pthread_mutex_unlock(&P->mu);
  P->read(P, P->ud, i);
  pthread_mutex_lock(&P->mu);
  P->state[i % P->cap] = 2;
  pthread_cond_broadcast(&P->cv);
}

/* Finishes the first piece given to finish, if any (mu held): 1 if it did. */
static int finish_one(pl_par *P) {
  if (P->fq_n == 0) return 0;
  size_t i = P->fq[P->fq_head];
  P->fq_head = (P->fq_head + 1) % P->cap;
  P->fq_n--;
  P->state[i % P->cap] = 4;
  pthread_mutex_unlock(&P->mu);
  P->finish(P, P->ud, i);
  pthread_mutex_lock(&P->mu);
  P->state[i % P->cap] = 0;
  P->nfinish--;
  pthread_cond_broadcast(&P->cv);
  return 1;
}

static void *worker(void *arg) {
  pl_par *P = arg;
  pthread_mutex_lock(&P->mu);
  for (;;) {
    if (finish_one(P)) continue; /* first: it frees a slot, and the memory it holds */
    size_t i = claim(P);
    if (i) {
      read_claimed(P, i);
      continue;
    }
    /* with a finish, pieces come to finish until pl_par_stop */
    if (pl_par_aborted(P) || (P->next_claim >= P->n && !P->finish)) break;
    pthread_cond_wait(&P->cv, &P->mu);
  }
  pthread_mutex_unlock(&P->mu);
  return NULL;
}

/* Pieces up to m are done with (m's state is free for piece m + cap). */
static void set_merged(pl_par *P, size_t m, int done) {
  pthread_mutex_lock(&P->mu);
  P->merged = m;
  if (done) P->state[m % P->cap] = 0;
  pthread_cond_broadcast(&P->cv);
  pthread_mutex_unlock(&P->mu);
}

/* cap: the states kept (n, or a ring of window + 2 where n is unknown) */
static pl_par *start(size_t n, size_t cap, int jobs, size_t window, void (*read)(pl_par *P, void *ud, size_t i),
                     void (*finish)(pl_par *P, void *ud, size_t i), void *ud) {
  pl_par *P = pl_xcalloc(1, sizeof *P);
  P->n = n;
  P->window = window ? window : 1;
  P->cap = cap ? cap : 1;
  P->state = pl_xcalloc(P->cap, sizeof *P->state);
  if (finish) P->fq = pl_xcalloc(P->cap, sizeof *P->fq);
  P->next_claim = 1;
  P->read = read;
  P->finish = finish;
  P->ud = ud;
  pthread_mutex_init(&P->mu, NULL);
  pthread_cond_init(&P->cv, NULL);
  P->th = pl_xcalloc((size_t)(jobs > 1 ? jobs : 1), sizeof *P->th);
  for (int t = 1; t < jobs; t++)
    if (pthread_create(&P->th[P->nth], NULL, worker, P) == 0) P->nth++;
  return P;
}

pl_par *pl_par_start(size_t n, int jobs, void (*read)(pl_par *P, void *ud, size_t i), void *ud) {
  return start(n, n, jobs, 2 * (size_t)(jobs > 0 ? jobs : 1), read, NULL, ud);
}

pl_par *pl_par_start_ring(size_t n, int jobs, size_t window, void (*read)(pl_par *P, void *ud, size_t i),
                          void (*finish)(pl_par *P, void *ud, size_t i), void *ud) {
  size_t w = window ? window : 1;
  return start(n, n < w + 2 ? n : w + 2, jobs, w, read, finish, ud);
}

void pl_par_wait(pl_par *P, size_t i) {
  set_merged(P, i - 1, 0);
  pthread_mutex_lock(&P->mu);
  while (P->state[i % P->cap] != 2) {
    if (finish_one(P)) continue;
    size_t j = claim(P);
    if (j) read_claimed(P, j);
    else pthread_cond_wait(&P->cv, &P->mu);
  }
  pthread_mutex_unlock(&P->mu);
}

void pl_par_done(pl_par *P, size_t i) { set_merged(P, i, 1); }

void pl_par_finish(pl_par *P, size_t i) {
  pthread_mutex_lock(&P->mu);
  P->merged = i;
  P->state[i % P->cap] = 3;
  P->fq[(P->fq_head + P->fq_n) % P->cap] = i;
  P->fq_n++;
  P->nfinish++;
  pthread_cond_broadcast(&P->cv);
  pthread_mutex_unlock(&P->mu);
}

void pl_par_sync(pl_par *P) {
  pthread_mutex_lock(&P->mu);
  while (P->nfinish > 0)
    if (!finish_one(P)) pthread_cond_wait(&P->cv, &P->mu);
  pthread_mutex_unlock(&P->mu);
}

void pl_par_stop(pl_par *P) {
  if (P->finish) pl_par_sync(P);
  pthread_mutex_lock(&P->mu);
  __atomic_store_n(&P->abort, 1, __ATOMIC_RELAXED);
  pthread_cond_broadcast(&P->cv);
  pthread_mutex_unlock(&P->mu);
  for (int t = 0; t < P->nth; t++) pthread_join(P->th[t], NULL);
  free(P->th);
  free(P->state);
  free(P->fq);
  pthread_mutex_destroy(&P->mu);
  pthread_cond_destroy(&P->cv);
  free(P);
}

/* ---- the merge ---------------------------------------------------------- */

uint32_t *pl_par_pool_map(pl_pool *dst, const pl_pool *src) {
  size_t n = pl_pool_count(src);
  uint32_t *map = pl_xmalloc((n + 1) * sizeof *map);
  map[0] = 0;
  for (size_t id = 1; id <= n; id++) {
    size_t len;
    const char *s = pl_pool_str(src, (uint32_t)id, &len);
    map[id] = pl_pool_intern(dst, s, len);
  }
  return map;
}

static size_t elsize(pl_type t) { return t == PL_STR ? 4 : t == PL_BOOL ? 1 : 8; }

/* Appends column sc's first `add` cells to dc (same type) at row n0. */
static void append_col(pl_column *dc, const pl_column *sc, size_t n0, size_t add, const uint32_t *map) {
  pl_column_reserve(dc, n0 + add);
  if (dc->type == PL_STR) {
    for (size_t r = 0; r < add; r++) dc->v.str[n0 + r] = map[sc->v.str[r]];
  } else memcpy((char *)dc->v.any + n0 * elsize(dc->type), sc->v.any, add * elsize(dc->type));
  dc->len = n0 + add;
}

/* add missing cells at row n0 of dc */
static void append_missing(pl_column *dc, size_t n0, size_t add) {
  pl_column_reserve(dc, n0 + add);
  for (size_t r = n0; r < n0 + add; r++) switch (dc->type) {
      case PL_NUM: dc->v.num[r] = NAN; break;
      case PL_INT: dc->v.i64[r] = PL_INT_NA; break;
      case PL_BOOL: dc->v.b[r] = PL_BOOL_NA; break;
      case PL_STR: dc->v.str[r] = 0; break;
    }
  dc->len = n0 + add;
}

/* Room for add more rows in d, its pages faulted in a batch (one fault a
** page as the copy writes costs more, as for a parser's own rows). */
static void make_room(pl_table *d, size_t n0, size_t add) {
  pl_table_reserve(d, n0 + add);
  pl_table_populate(d, n0, n0 + add);
}

void pl_par_append_rows(pl_table *d, const pl_table *s, const uint32_t *map) {
  if (!d || !s || s->nrows == 0) return;
  size_t n0 = d->nrows, add = s->nrows;
  pl_table_reserve(d, n0 + add);
  for (size_t i = 0; i < d->ncols; i++) append_col(d->cols[i], s->cols[i], n0, add, map);
  d->nrows = n0 + add;
}

int pl_par_rows_fit(const pl_table *d, size_t add) {
  for (size_t i = 0; i < d->ncols; i++)
    if (d->cols[i]->shared || d->cols[i]->cap < d->nrows + add) return 0;
  return 1;
}

size_t pl_par_claim_rows(pl_table *d, size_t add) {
  size_t n0 = d->nrows;
  pl_table_reserve(d, n0 + add);
  for (size_t i = 0; i < d->ncols; i++) d->cols[i]->len = n0 + add;
  d->nrows = n0 + add;
  return n0;
}

/* sc's cells that are not missing into dc at row n0 (whose cells read as
** missing: pl_column_fills), so that a piece's missing values touch no
** page of dc */
static void copy_present(pl_column *dc, size_t n0, const pl_column *sc, size_t add, const uint32_t *map) {
  switch (dc->type) {
    case PL_STR:
      for (size_t r = 0; r < add; r++)
        if (sc->v.str[r]) dc->v.str[n0 + r] = map[sc->v.str[r]];
      break;
    case PL_BOOL:
      for (size_t r = 0; r < add; r++)
        if (sc->v.b[r] != PL_BOOL_NA) dc->v.b[n0 + r] = sc->v.b[r];
      break;
    default: { /* 8-byte cells: all but the marker's bits */
      uint64_t na = pl_missing_bits(dc->type), u;
      for (size_t r = 0; r < add; r++) {
        memcpy(&u, (const char *)sc->v.any + 8 * r, 8);
        if (u != na) memcpy((char *)dc->v.any + 8 * (n0 + r), &u, 8);
      }
    }
  }
}

void pl_par_copy_rows(pl_table *d, size_t n0, const pl_table *s, const uint32_t *map) {
  size_t add = s->nrows;
  for (size_t i = 0; i < d->ncols; i++) {
    pl_column *dc = d->cols[i];
    const pl_column *sc = s->cols[i];
    if (pl_column_fills(dc)) { /* storage that reads as missing: only the values */
      copy_present(dc, n0, sc, add, map);
      continue;
    }
    if (dc->type == PL_STR) {
      uint32_t *o = dc->v.str + n0;
      const uint32_t *in = sc->v.str;
      for (size_t r = 0; r < add; r++) o[r] = map[in[r]];
    } else memcpy((char *)dc->v.any + n0 * elsize(dc->type), sc->v.any, add * elsize(dc->type));
  }
}

int pl_par_append_fits(const pl_table *d, const pl_table *s) {
  if (s->rowopen) return 0;
  for (size_t i = 0; i < s->ncols; i++) {
    int c = pl_table_col(d, s->cols[i]->name);
    if (c >= 0 && d->cols[c]->type != s->cols[i]->type) return 0;
  }
  return 1;
}

void pl_par_append_named(pl_table *d, const pl_table *s, const uint32_t *map) {
  size_t n0 = d->nrows, add = s->nrows;
  size_t nd0 = d->ncols;
  int *to = pl_xmalloc((s->ncols ? s->ncols : 1) * sizeof *to);
  for (size_t i = 0; i < s->ncols; i++) {
    /* the same column at the same place: the common case, no search */
    int c = i < nd0 && strcmp(d->cols[i]->name, s->cols[i]->name) == 0 ? (int)i : pl_table_col(d, s->cols[i]->name);
    if (c < 0) {
      c = pl_table_add_col(d, s->cols[i]->name, s->cols[i]->type);
      if (s->cols[i]->doc) pl_table_set_doc(d, c, s->cols[i]->doc);
    }
    to[i] = c;
  }
  if (add > 0) make_room(d, n0, add);
  char *got = pl_xcalloc(d->ncols ? d->ncols : 1, 1);
  if (add > 0)
    for (size_t i = 0; i < s->ncols; i++) {
      append_col(d->cols[to[i]], s->cols[i], n0, add, map);
      got[to[i]] = 1;
    }
  for (size_t c = 0; c < d->ncols && add > 0; c++)
    if (!got[c]) append_missing(d->cols[c], n0, add);
  d->nrows = n0 + add;
  free(got);
  free(to);
}

void pl_par_offset_ints(pl_table *t, int col, size_t from, int64_t add) {
  if (col < 0 || add == 0) return;
  pl_column *c = t->cols[col];
  if (c->type != PL_INT) return;
  for (size_t r = from; r < c->len; r++)
    if (c->v.i64[r] != PL_INT_NA) c->v.i64[r] += add;
}

void pl_par_merge_meta(pl_profile *dst, const pl_profile *src) {
  for (size_t i = 0; i < src->nmeta; i++) {
    const pl_meta *m = &src->meta[i];
    if (pl_profile_meta_get(dst, m->key)) continue;
    if (m->text) pl_profile_meta_str(dst, m->key, m->text, strlen(m->text));
    else pl_profile_meta_num(dst, m->key, m->num);
  }
}

void pl_par_merge_diags(pl_profile *dst, const pl_profile *src, size_t line_off) {
  for (size_t i = 0; i < src->ndiags; i++)
    pl_profile_diag(dst, src->diags[i].line ? src->diags[i].line + line_off : 0, "%s", src->diags[i].msg);
  dst->ndiags_dropped += src->ndiags_dropped;
}

/* ---- a body of rows read on several threads (par.h) --------------------- */

const char *pl_par_line_from(const char *data, const char *p, const char *end) {
  if (p >= end) return end;
  if (p <= data || p[-1] == '\n') return p;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  return nl ? nl + 1 : end;
}

typedef struct body_piece {
  const char *guess, *start, *stop; /* start NULL: no line starts in the piece */
  size_t nlines;
  int ended;
  void *rd; /* the piece's reader, NULL when not read cleanly */
} body_piece;

typedef struct body_run {
  const pl_par_body *ops;
  void *ud;
  const char *base, *end;
  body_piece *pc;
  size_t n;
} body_run;

static size_t body_merged, body_reread;
void pl_par_body_counts(size_t *merged, size_t *reread) {
  *merged = __atomic_load_n(&body_merged, __ATOMIC_RELAXED);
  *reread = __atomic_load_n(&body_reread, __ATOMIC_RELAXED);
}

static void body_read(pl_par *S, void *ud, size_t i) {
  (void)S;
  body_run *R = ud;
  body_piece *w = &R->pc[i];
  const char *lim = i + 1 < R->n ? R->pc[i + 1].guess : R->end;
  const char *q = pl_par_line_from(R->base, w->guess, R->end);
  if (q < lim && R->ops->first) q = R->ops->first(R->ud, q, lim, R->end);
  if (!q || q >= lim) return;
  w->start = q;
  w->rd = R->ops->piece(R->ud, q, lim, R->end, &w->stop, &w->nlines, &w->ended);
}

static void body_release(body_run *R, body_piece *w) {
  if (w->rd) R->ops->release(w->rd);
  w->rd = NULL;
}

int pl_par_body_read(const pl_par_body *ops, void *ud, pl_lines *c, int jobs, size_t chunk, const pl_parse_opts *o,
                     size_t total, pl_err *err) {
  const char *from = c->p, *end = c->end;
  if (chunk == 0) chunk = 1;
  body_run R;
  memset(&R, 0, sizeof R);
  R.ops = ops;
  R.ud = ud;
  R.base = c->base;
  R.end = end;
  R.n = from < end ? ((size_t)(end - from) + chunk - 1) / chunk : 1;
  if (jobs < 2 || R.n < 2) return ops->serial(ud, c, end);
  /* piece 0 first: a body that ends in it starts no thread */
  int r = ops->serial(ud, c, from + chunk);
  if (r != 0) return r;
  R.pc = pl_xcalloc(R.n, sizeof *R.pc);
  for (size_t i = 0; i < R.n; i++) R.pc[i].guess = from + i * chunk;
  pl_par *S = pl_par_start(R.n, jobs, body_read, &R);
  size_t m = 0;
  for (int first = 1;; first = 0) {
    if (!first) r = ops->serial(ud, c, m + 1 < R.n ? R.pc[m + 1].guess : end);
    if (r != 0 || m + 1 >= R.n || c->p >= end) break;
    m++;
    /* pieces the main thread read past (a record over their start) */
    while (m + 1 < R.n && c->p >= R.pc[m + 1].guess) {
      pl_par_wait(S, m);
      body_release(&R, &R.pc[m]);
      m++;
    }
    pl_par_wait(S, m);
    body_piece *w = &R.pc[m];
    int ended = 0;
    if (w->rd && w->start == c->p && ops->merge(ud, w->rd, c->lineno) == 0) {
      c->p = w->stop;
      c->lineno += w->nlines;
      ended = w->ended;
      __atomic_add_fetch(&body_merged, 1, __ATOMIC_RELAXED);
    } else if (w->start) __atomic_add_fetch(&body_reread, 1, __ATOMIC_RELAXED);
    body_release(&R, w);
    pl_par_done(S, m);
    if (ended) {
      r = 1;
      break;
    }
    if (o && o->interrupt && *o->interrupt) {
      r = pl_err_set(err, c->lineno + 1, 1, "interrupted");
      break;
    }
    if (o && o->progress) o->progress(o->progress_ud, (size_t)(c->p - c->base), total);
  }
  pl_par_stop(S);
  for (size_t i = 0; i < R.n; i++) body_release(&R, &R.pc[i]);
  free(R.pc);
  return r;
}

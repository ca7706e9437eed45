/*
** par.h -- one input read on several threads (par.c): the pieces' schedule
** and the merge of what a worker read into the main thread's tables.
**
** A reader cuts its input into n pieces at guessed offsets.  Workers read
** pieces 1..n-1, in order, each into tables and string pools of its own,
** at most 2 pieces per thread ahead of the main thread's merge.  The main
** thread reads piece 0 itself, then walks the pieces in file order: it
** waits for a piece (pl_par_wait), appends its rows when it began where the
** main thread stands (pl_par_pool_map, pl_par_append_*: strings re-interned
** in the order the piece met them, so every string id is the one-thread
** read's), else reads it again itself, and says it is done with it
** (pl_par_done).  Used by kineto_par.c, csvread.c and pl_par_body_read
** (below).
**
** A reader with a finish (pl_par_start_ring) may instead hand the rest of
** a piece's merge to whichever thread is free (pl_par_finish): the main
** thread takes the piece's rows and strings in order (pl_par_claim_rows,
** pl_par_pool_map) and goes on, while a worker copies the cells
** (pl_par_copy_rows).  Workers take pieces to finish before pieces to read.
*/
#ifndef PL_PAR_H
#define PL_PAR_H

#include <stddef.h>
#include <stdint.h>
#include "format.h"
#include "profile.h"
#include "scan.h"

typedef struct pl_par pl_par;

/* The schedule of pieces 1..n-1 read by jobs - 1 worker threads (and by
** the main thread while it waits): read(P, ud, i) reads piece i, on
** whichever thread. */
pl_par *pl_par_start(size_t n, int jobs, void (*read)(pl_par *P, void *ud, size_t i), void *ud);
/* The same for an input whose pieces are known as it goes (a stream: n
** may be SIZE_MAX, the main thread stops waiting where the input ends):
** at most `window` pieces are read ahead of the main thread, and a piece's
** state and the reader's own per-piece slot can live in a ring of
** window + 2 entries (piece i at i % (window + 2)).  Every piece the main
** thread waits for must then be said done (pl_par_done) before it waits
** for the next.  finish (may be NULL): see pl_par_finish. */
pl_par *pl_par_start_ring(size_t n, int jobs, size_t window, void (*read)(pl_par *P, void *ud, size_t i),
                          void (*finish)(pl_par *P, void *ud, size_t i), void *ud);
/* Waits until piece i is read, reading others meanwhile; the pieces before
** i are done with. */
void pl_par_wait(pl_par *P, size_t i);
/* Piece i is merged or read again: the workers may read further ahead. */
void pl_par_done(pl_par *P, size_t i);
/* Instead of pl_par_done: piece i is merged but for the reader's
** finish(P, ud, i), which the first thread free runs (a worker, or the
** main thread in pl_par_wait or pl_par_sync).  Piece i's slot (of a ring)
** is free again when finish returns. */
void pl_par_finish(pl_par *P, size_t i);
/* Waits until every piece given to pl_par_finish is finished (finishing
** them itself meanwhile): after it, the main thread may touch what the
** finishes wrote (pl_par_stop does it first). */
void pl_par_sync(pl_par *P);
/* Has pl_par_stop begun (a worker deep in a piece may stop early)? */
int pl_par_aborted(const pl_par *P);
/* Stops the workers (a piece being read is finished first), joins them,
** frees the schedule. */
void pl_par_stop(pl_par *P);
/* The number of online cores (at least 1). */
int pl_par_cores(void);
/* The threads a reader takes for one input: opts->jobs, or the core count
** where it is 0 or opts is NULL. */
int pl_par_jobs(const pl_parse_opts *o);

/* map[id] = the id in dst of src's string id (map[0] = 0), interning the
** strings dst lacks in src's id order: malloc'd, pl_pool_count(src) + 1
** entries. */
uint32_t *pl_par_pool_map(pl_pool *dst, const pl_pool *src);
/* Appends the rows of s to d, which has the same columns in the same
** order and types; string ids through map.  d's pages are not faulted in
** first: its reader does that ahead, a batch of pieces at a time
** (kineto_par.c's finishes: 4 pieces' rows, 6 pieces ahead, every 4
** pieces; a madvise a column a piece was 438 k calls on a 4 GB trace). */
void pl_par_append_rows(pl_table *d, const pl_table *s, const uint32_t *map);
/* Does d have room for add more rows in every column (pl_par_claim_rows
** then moves no buffer)? */
int pl_par_rows_fit(const pl_table *d, size_t add);
/* Appends add rows to d whose cells are not yet written (d's columns
** grown to hold them): returns the first.  pl_par_copy_rows writes them. */
size_t pl_par_claim_rows(pl_table *d, size_t add);
/* Writes the rows of s (same columns as d) into d's rows claimed from n0
** on, string ids through map.  Reads of d only its column buffers: may run
** on another thread while the main thread claims more rows, as long as
** they fit (pl_par_rows_fit) and nothing else writes d. */
void pl_par_copy_rows(pl_table *d, size_t n0, const pl_table *s, const uint32_t *map);
/* Can s's rows be appended to d by column name: no open row in s, and
** every column of s that d has (by name) of the same type?  (d's open row,
** if any, must be ended first.) */
int pl_par_append_fits(const pl_table *d, const pl_table *s);
/* Appends the rows of s to d by column name: d gains the columns of s it
** lacks (at its end, in s's order, with their docs, back-filled missing),
** and its columns that s lacks get missing cells.  pl_par_append_fits
** must hold. */
void pl_par_append_named(pl_table *d, const pl_table *s, const uint32_t *map);
/* Adds add to the non-missing cells of integer column col from row `from` on. */
void pl_par_offset_ints(pl_table *t, int col, size_t from, int64_t add);
/* The metadata src has and dst lacks, added in src's order. */
void pl_par_merge_meta(pl_profile *dst, const pl_profile *src);
/* src's diagnostics appended to dst's (their lines moved by line_off),
** within dst's cap (past it they are counted, as pl_profile_diag does). */
void pl_par_merge_diags(pl_profile *dst, const pl_profile *src, size_t line_off);

/* ---- a body of rows read on several threads ----------------------------
** One table's rows from a line start on, up to the line that ends the body
** (a blank line, the next heading: the reader's rule) or the end of the
** input: the rest is cut at the first line start at or past each guessed
** offset (chunk bytes apart).  A worker reads piece i from there with a
** reader of its own (ops->piece: own tables and string pools, line
** numbers from 1 at the piece's start, no --lenient) up to the first
** record boundary at or past the next guess, or to where the body ends.
** The main thread reads piece 0 itself (ops->serial) before any worker
** starts (a body that ends there costs no thread), then walks the pieces
** in file order: where it stands exactly at a piece's start it
** appends the piece (ops->merge: strings re-interned in the order the piece
** met them, line numbers moved on), else (the piece began inside a record,
** held a bad row, or could not be merged) it reads the piece itself, so
** that errors, diagnostics and --lenient are the one-thread read's.  A
** reader whose records span lines (ncu text's launch blocks) says where
** one begins (ops->first); a piece then starts at its first record.  Used
** by fmt_nvprof.c (GPU trace text and CSV), fmt_kernel_table.c,
** fmt_ncu_text.c and fmt_ncu_csv.c. */
typedef struct pl_par_body {
  /* Worker: reads from start (a line start; a record start where ops->first
  ** says) to the first record boundary at or past lim, or to where the
  ** body ends (*ended = 1, *stop at the line that ends it), or to end.
  ** Returns the piece's reader, NULL when the piece could not be read
  ** cleanly.  *stop: where it stopped (a line start or end), *nlines: the
  ** lines it read. */
  void *(*piece)(void *ud, const char *start, const char *lim, const char *end, const char **stop, size_t *nlines,
                 int *ended);
  /* Main thread: reads on from c until c->p is a record boundary at or past
  ** upto: 0; 1 when the body ends first (c just before the line that ends
  ** it); -1 with the reader's error set. */
  int (*serial)(void *ud, pl_lines *c, const char *upto);
  /* Main thread, standing at the piece's start: appends its rows, their
  ** line numbers moved on by line_off: 0, or -1 (nothing done) when they
  ** cannot be appended as the one-thread read would have read them. */
  int (*merge)(void *ud, void *piece, size_t line_off);
  void (*release)(void *piece);
  /* Worker, may be NULL (every line start begins a record): the first
  ** record start at or past p (a line start) and before lim, or NULL. */
  const char *(*first)(void *ud, const char *p, const char *lim, const char *end);
} pl_par_body;

/* Reads a body from c on (c->p a line start, c->lineno the line before it,
** c->end where the input or the body ends at the latest) on jobs threads in
** pieces of chunk bytes: 0 at c->end, 1 where the body ended (c before the
** line that ends it), -1 on error (err set by ops->serial, or
** "interrupted").  o: interrupt and progress (c->p - c->base of total).
** ops->serial's 0 at c->end ends the read too. */
int pl_par_body_read(const pl_par_body *ops, void *ud, pl_lines *c, int jobs, size_t chunk, const pl_parse_opts *o,
                     size_t total, pl_err *err);
/* Pieces pl_par_body_read merged and read again so far (tests). */
void pl_par_body_counts(size_t *merged, size_t *reread);
/* The first line start at or past p in [data, end). */
const char *pl_par_line_from(const char *data, const char *p, const char *end);

#endif

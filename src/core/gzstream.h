/*
** gzstream.h -- a gzip file inflated on a thread of its own into a bounded
** ring of segments, read by one consumer through a sliding window and,
** segment by segment, by readers on other threads.
**
** The producer thread inflates the compressed bytes (held whole: the
** loader maps the file) segment by segment into a ring of slots; it waits
** when the ring is full, so the inflated text is never held whole: the
** memory is the ring plus the consumer's window.  Each slot starts with a
** copy of the text's last bytes before its segment (the carry, up to 64
** KiB): a reader of one segment (kineto_par.c's workers) sees where its
** first event starts and has room for the last one's end, and the window
** moves into the next slot without a copy.
**
** The window: one contiguous view of the inflated text; pl_gzs_more drops
** the bytes before a point the consumer no longer needs and appends the
** next segment.  The bytes it keeps (an event cut by a segment's end) are
** in the next slot's carry; longer ones (a value bigger than the carry)
** go to a buffer of their own.  A slot is reused once the window has
** passed it and no segment reader holds it.
**
** Concatenated gzip members are read one after the other, as gzip -d
** does.  A damaged or cut stream is an error of pl_gzs_more, with the
** messages and byte offsets of the whole-file inflate.
*/
#ifndef PL_GZSTREAM_H
#define PL_GZSTREAM_H
#include "pl_util.h"
#include "format.h"

#include <stddef.h>

typedef struct pl_gzs pl_gzs;

/* Starts inflating src[0..n) (gzip or zlib; kept by the caller until
** pl_gzs_close).  chunk: the ring's chunk size in bytes, 0 for the default
** (1 MiB, or $PERFLAB_GZ_CHUNK: tests set it tiny so that every construct
** straddles a chunk boundary).  mapped: src is a private read-only file
** mapping whose pages the producer may release once inflated. */
pl_gzs *pl_gzs_open(const unsigned char *src, size_t n, size_t chunk, int mapped);
/* The same with slots slots in the ring (pl_gzs_open: 8). */
pl_gzs *pl_gzs_open_n(const unsigned char *src, size_t n, size_t chunk, int slots, int mapped);
/* The segment size and ring a file read with jobs threads (0: as many as
** cores) wants: one
** thread, 1 MiB (or $PERFLAB_GZ_CHUNK) and 8 slots; more, chunk_bytes
** (the piece a thread reads; else $PERFLAB_GZ_CHUNK, else 256 KiB) and
** 2 * jobs + 3 slots (the pieces read ahead of the merge, the window's,
** one being inflated). */
size_t pl_gzs_seg_default(int jobs, size_t chunk_bytes, int *slots);
/* Stops the producer (when still running) and frees everything. */
void pl_gzs_close(pl_gzs *s);

/* The window: contiguous inflated bytes, data[0] being byte off of the
** stream.  Valid until the next pl_gzs_more.  Empty at the start. */
const char *pl_gzs_data(const pl_gzs *s, size_t *len, size_t *off);
/* Drops the window's bytes before keep (an index into it) and appends the
** next chunk: 1.  0 at the end of the stream, -1 when it is damaged or cut
** (err set, byte offset in the compressed file); the window is then left
** as it was. */
int pl_gzs_more(pl_gzs *s, size_t keep, pl_err *err);
/* Moves the window's start to stream offset off (at or past its start),
** taking segments as needed; the window may then be empty.  1, 0 (the
** stream ended first), -1 as pl_gzs_more. */
int pl_gzs_seek(pl_gzs *s, size_t off, pl_err *err);
/* Segment seq for a reader on another thread: waits until it is inflated;
** 1 with data[0..len) the slot's bytes (its carry, then the segment),
** data[0] being stream offset base, held until pl_gzs_seg_done.  0 when
** it cannot be had: the stream ended before it (or failed), or its slot
** has been reused (the window has long passed it). */
int pl_gzs_seg(pl_gzs *s, size_t seq, const char **data, size_t *len, size_t *base);
void pl_gzs_seg_done(pl_gzs *s, size_t seq);
/* The segment size (segment seq holds stream bytes seq * seg on, all but
** the last full), the carry (every slot after the first starts with this
** many bytes before its segment) and the ring's slots. */
void pl_gzs_geometry(const pl_gzs *s, size_t *seg, size_t *overlap, int *slots);
/* Progress, for the consumer: the inflated bytes handed to the window
** so far (out_done), the compressed bytes they were inflated from
** (in_done: a pair taken at the same point of the stream, whatever the
** producer has inflated ahead, so that out_done * in_total / in_done
** estimates the inflated size) and the compressed size. */
void pl_gzs_progress(const pl_gzs *s, size_t *in_done, size_t *in_total, size_t *out_done);

/* The first bytes of a gzip file, inflated: at least want of them (or all,
** when fewer), and more while no newline is followed by 64 KiB, up to cap
** (what format detection looks at).  Returns the bytes (the caller frees)
** and *eof = 1 when they are the whole text; NULL when the stream is
** damaged. */
char *pl_gz_peek(const unsigned char *src, size_t n, size_t want, size_t cap, size_t *len, int *eof);

/* A format's reader of a .gz while it is inflated (formats.c lists them:
** the formats whose files are big, kineto). */
typedef int (*pl_parse_stream_fn)(pl_gzs *s, pl_profile *p, const pl_parse_opts *o, pl_err *err);

#endif

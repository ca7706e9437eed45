/*
** gzstream.h -- a gzip file inflated on a thread of its own into a bounded
** ring of chunks, read by one consumer through a sliding window.
**
** The producer thread inflates the compressed bytes (held whole: the
** loader maps the file) chunk by chunk into a ring; it waits when the ring
** is full, so the inflated text is never held whole: the memory is the
** ring plus the consumer's window.  The consumer sees one contiguous
** window of the inflated text; pl_gzs_more drops the bytes before a point
** it no longer needs and appends the next chunk.  The bytes it keeps (an
** event cut by a chunk's end) are copied in front of the next chunk, into
** room left there for them, so that the window stays contiguous; longer
** ones (a value bigger than that room) go to a buffer of their own.
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
/* Progress: compressed bytes inflated so far and in all, and inflated
** bytes handed to the consumer so far. */
void pl_gzs_progress(pl_gzs *s, size_t *in_done, size_t *in_total, size_t *out_done);

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

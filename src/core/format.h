/*
** format.h -- the parser interface and the one registry of input formats.
**
** A parser reads a whole input held in memory (a file is mapped or read;
** .gz is inflated by the loader, or streamed to the formats that read it
** so: formats.c's STREAMED) and fills a profile.  It reports malformed
** input through pl_err (line, column, "expected ..., found ...") and returns
** -1; it never leaves a partially filled profile behind as a success.
** Detection is by content: each format scores the first bytes of the input.
*/
#ifndef PL_FORMAT_H
#define PL_FORMAT_H

#include <stddef.h>
#include "profile.h"

typedef struct pl_input {
  const char *name; /* shown in errors */
  const char *data;
  size_t len;
} pl_input;

typedef struct pl_parse_opts {
  const char *const *tables; /* NULL-terminated list of wanted tables, or NULL for all */
  int lenient;               /* salvage what parses; list the rest in diagnostics */
  int raw_text;              /* metrics.raw: the printed text of every value, numbers
                             ** too (else only of values that are not numbers) */
  volatile int *interrupt;   /* when set non-zero, long parsers stop with an error */
  void (*progress)(void *ud, size_t done, size_t total);
  void *progress_ud;
  int jobs;           /* threads for one file (formats that split their input:
                             ** kineto, ncu-text, ncu-csv, csv, rocprof, kernel-table); 0 = the core count, 1 = one thread.  The
                             ** tables are the same whatever it is */
  size_t chunk_bytes; /* the piece each thread takes (0 = the default, 1 MiB);
                             ** tests set it tiny to split inside every construct */
  const char *path;   /* the file the input is, byte for byte, when the loader
                             ** mapped a plain regular file (not inflated, not a
                             ** pipe); NULL otherwise.  For parsers that must open
                             ** the file through a library (nsys-sqlite) */
} pl_parse_opts;

typedef struct pl_format {
  const char *id;
  const char *summary;
  const char *tables; /* the tables it provides, space-separated */
  /* Score 0..100 on the first `len` bytes (at most 64 KiB) of the input. */
  int (*detect)(const char *data, size_t len);
  int (*parse)(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err);
} pl_format;

/* The registry (formats.c is the only file that lists them). */
const pl_format *const *pl_formats(size_t *n);
const pl_format *pl_format_find(const char *id);
/* Best-scoring format for the input, or NULL when none scores above 0. */
const pl_format *pl_format_detect(const char *data, size_t len);

/* Kineto's parallel read (kineto_par.c): pieces appended as a worker read
** them, and pieces the main thread read again, since the process started. */
void pl_kineto_par_counts(size_t *merged, size_t *reread);
/* (ncu text and CSV, the kernel table and the nvprof GPU trace:
** pl_par_body_counts in par.h.) */
/* .gz files read while they were inflated (formats.c), since the process
** started (tests check that the stream path ran). */
size_t pl_gz_streamed(void);

/* Is table `name` wanted under these options? */
int pl_want_table(const pl_parse_opts *o, const char *name);

/* Row-level errors under --lenient.  A parser that has just set err for a
** bad row calls this: with o->lenient it records the error as a diagnostic
** of p ("skipped: MESSAGE (column C)" at err's line), clears err and
** returns 1, and the parser drops the row (pl_row_discard) and goes on;
** without it returns 0 and the parser fails with err as before.
** Structural errors (no header, no data at all) do not call it. */
int pl_lenient_skip(const pl_parse_opts *o, pl_profile *p, pl_err *err);

/* Loads a file: reads it (inflating gzip), detects or uses `format_id`,
** parses.  Returns NULL and fills err on failure. */
pl_profile *pl_load_file(const char *path, const char *format_id, const pl_parse_opts *o, pl_err *err);
pl_profile *pl_load_buffer(const char *name, const char *data, size_t len, const char *format_id,
                           const pl_parse_opts *o, pl_err *err);
#endif

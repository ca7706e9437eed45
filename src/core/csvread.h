/*
** csvread.h -- the one CSV reader of the C core, on top of libcsv (strict
** mode).  Every CSV-based format (csv, rocprof, nvprof --csv, nsys stats
** --format csv, ncu --csv) reads through it.
**
** Two levels:
**
**  1. pl_csv_read: a rows-of-fields iterator.  It hands each record to a
**     callback as an array of fields (quotes removed, "" unescaped, fields
**     NUL-terminated, libcsv's default trimming of spaces/tabs around
**     unquoted fields) together with the line number where the record
**     starts and the record's raw text, so that callers can report
**     FILE:LINE:COLUMN errors (pl_csv_field_col gives the column of a
**     field).  Blank lines produce no record.  Quoted fields may span lines.
**     Malformed CSV (a quote inside an unquoted field, text after a closing
**     quote, a quoted field never closed) is an error with line and column:
**       "expected a delimiter or end of line after the closing quote, found ..."
**       "expected a closing quote for the field opened at line L column C, found end of file"
**       "expected a quote only at the start of a field, found ..."
**
**  2. pl_csv_table: a whole CSV with a header row as one typed table: a
**     column is PL_INT when every non-empty value is an int64 integer,
**     PL_NUM when every non-empty value is a number, PL_STR otherwise;
**     empty fields are missing.  One libcsv pass in the usual case; a
**     column that turns out to be text after numbers were seen is filled
**     by a second pass (so its text is kept exactly as written).  With
**     pl_csv_opts.jobs > 1 a large input is read on that many threads
**     (pieces cut at record boundaries, merged in file order): the same
**     table, types and string ids as the one-thread read.
**
** Typical use (level 1):
**
**   static int on_row(void *ud, const pl_csv_row *r, pl_err *err) {
**     if (r->index == 0) ... header: r->f[i], r->len[i]
**     else if (r->n != want)
**       return pl_err_expected(err, r->line, pl_csv_field_col(r, r->n), "...", ...);
**     return 0;          // non-zero stops the reader; set err first
**   }
**   pl_csv_opts o = { ',', first_line, interrupt };
**   if (pl_csv_read(data, len, &o, on_row, &state, err) != 0) ... error
*/
#ifndef PL_CSVREAD_H
#define PL_CSVREAD_H

#include <stddef.h>
#include "pl_util.h"
#include "table.h"
#include "profile.h"

typedef struct pl_csv_row {
  size_t n;             /* number of fields */
  const char *const *f; /* f[i]: field text, NUL-terminated; valid during the callback */
  const size_t *len;    /* len[i]: its length in bytes */
  size_t line;          /* line where the record starts (1-based, see first_line) */
  size_t index;         /* 0-based record number (a header is record 0) */
  const char *src;      /* the record's raw text in the input (starts at a line start) */
  size_t srclen;        /* its length, without the final line end */
  unsigned char delim;  /* the delimiter in use */
} pl_csv_row;

/* Return 0 to go on; non-zero stops the reader, which then returns -1
** (the callback sets err, e.g. with pl_err_expected). */
typedef int (*pl_csv_row_fn)(void *ud, const pl_csv_row *row, pl_err *err);

typedef struct pl_csv_opts {
  unsigned char delim;                                   /* 0 means ',' */
  size_t first_line;                                     /* line number of data[0]; 0 means 1 */
  volatile int *interrupt;                               /* checked between lines; stops with "interrupted" */
  void (*progress)(void *ud, size_t done, size_t total); /* optional (pl_csv_table) */
  void *progress_ud;
  int jobs;           /* pl_csv_table: threads (0 or 1: one); the table is the same whatever it is */
  size_t chunk_bytes; /* pl_csv_table: the piece each thread takes (0: 4 MiB); tests set it tiny */
} pl_csv_opts;

/* The options a format reader passes for a whole file of comma-separated
** records from line 1: the parse options' interrupt flag, progress, thread
** count (pl_par_jobs) and piece size. */
struct pl_parse_opts;
pl_csv_opts pl_csv_opts_whole(const struct pl_parse_opts *o);

/* Reads data[0..len) record by record.  0 on success, -1 with err set. */
int pl_csv_read(const char *data, size_t len, const pl_csv_opts *o, pl_csv_row_fn fn, void *ud, pl_err *err);

/* The same reader without copying fields: field_fn sees each field as
** libcsv delivers it (s is NOT NUL-terminated and is valid only during the
** call; i is the 0-based field index in its record), then row_fn sees the
** record with n, line, index, src and srclen set and f == len == NULL.
** Either callback returns non-zero (after setting err) to stop. */
typedef int (*pl_csv_field_fn)(void *ud, size_t i, const char *s, size_t n, pl_err *err);
/* Before each csv_parse() of N bytes: libcsv grows a field's buffer by its
** block size (128 bytes by default), so a field of F bytes costs F/128
** reallocs of up to F bytes each -- quadratic, 20 s under ASan for one
** quoted field of 1 MB.  This sets the block to the larger of the buffer's
** size and N, so the buffer at least doubles and one growth covers the
** piece being fed. */
struct csv_parser;
void pl_csv_grow_hint(struct csv_parser *p, size_t n);

int pl_csv_read_fields(const char *data, size_t len, const pl_csv_opts *o, pl_csv_field_fn field_fn,
                       pl_csv_row_fn row_fn, void *ud, pl_err *err);

/* 1-based column (byte offset + 1 in its line) where field i of the record
** starts; for i == row->n, the column just after the record's text. */
size_t pl_csv_field_col(const pl_csv_row *row, size_t i);

/* Whole CSV with a header row -> one typed table named `name`.  Header
** cells become column names (an empty or repeated name gets a _N suffix).
** A record with another number of fields than the header is an error.
** Returns NULL with err set on malformed input. */
pl_table *pl_csv_table(const char *data, size_t len, const char *name, const pl_csv_opts *o, pl_err *err);

/* The same under --lenient when `lenient` is not NULL: a record with
** another number of fields than the header is skipped and listed in that
** profile's diagnostics instead of being an error. */
pl_table *pl_csv_table_lenient(const char *data, size_t len, const char *name, const pl_csv_opts *o,
                               pl_profile *lenient, pl_err *err);

/* pl_csv_table's pieces read on several threads so far: appended to the
** main reader's table, or read again by the main thread (tests). */
void pl_csv_par_counts(size_t *merged, size_t *reread);

/* Where a piece of CSV may be cut: the first line start at or past lim in
** [p, end) where a read from p (a record boundary) stands between records,
** or end.  For CSV that libcsv's strict mode accepts this is where the
** count of quotes from p is even (a quoted field holds its quotes doubled);
** past malformed CSV it may not be, and a reader of [p, that point) then
** meets the error first, as the one-thread read does.  *nlines: the lines
** in [p, that point) (a last one without its line end counts). */
const char *pl_csv_boundary(const char *p, const char *lim, const char *end, size_t *nlines);

/* Parses a CSV field as a number: int64 when it is an integer (returns 1),
** double otherwise (returns 2); 0 when it is not a number, -1 when empty. */
int pl_csv_number(const char *s, size_t n, int64_t *iv, double *dv);

#endif

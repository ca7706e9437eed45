/*
** mdtable.h -- Markdown pipe tables (GitHub style), shared by every parser
** that meets them: the comparison-report format, the generic `markdown`
** format, and anyone else.
**
**   | Metric | normal | abnormal |      <- header row
**   |:-------|-------:|:--------:|      <- delimiter row (same cell count)
**   | Total  | 12     | 10       |      <- body rows, until a non-row line
**
** Cells are split on '|' (a backslash-escaped "\|" stays in the cell) and
** trimmed.  Nothing is allocated per line: cells point into the input.
*/
#ifndef PL_MDTABLE_H
#define PL_MDTABLE_H

#include <stddef.h>
#include "scan.h"
#include "table.h"

#define PL_MD_MAXCELLS 128

typedef struct pl_md_cell {
  const char *s; /* trimmed text (points into the line) */
  size_t n;
  size_t col; /* 1-based column of the text in the line */
} pl_md_cell;

/* Splits a pipe-table row (first non-blank character '|', at most 3 spaces
** of indentation).  Returns the number of cells, or -1 when the line is not a
** row or has more than `max` cells.  A trailing '|' closes the last cell. */
int pl_md_split(const char *s, size_t n, pl_md_cell *cells, int max);

/* 1 when the cells form a delimiter row: each cell ':?-+:?'. */
int pl_md_is_delim(const pl_md_cell *cells, int n);

/* 1 when `line` is a header row and the line after it (peeked from c, which
** is positioned after `line`) is a delimiter row with the same cell count. */
int pl_md_table_starts(const pl_lines *c, const char *s, size_t n);

/* snake_case of a header or heading: ASCII letters/digits lower-cased, runs of
** other characters become one '_', '%' -> "pct", Greek beta/mu/delta (UTF-8)
** -> "beta"/"mu"/"delta" as words; leading/trailing '_' dropped.  Returns the
** length written (NUL-terminated, cut to outsz-1). */
size_t pl_md_snake(const char *s, size_t n, char *out, size_t outsz);

/* A number as reports print it: optional sign, thousands separators ("1,234.5"),
** exponent, "nan", an optional trailing '%'.  Returns 0 with *out set, 1 for a
** missing-value marker ("", "-", "--", "N/A", "n/a", "—", "–"), -1 otherwise. */
int pl_md_number(const char *s, size_t n, double *out);

/* How a column of a table is read (see pl_md_read_table). */
enum { PL_MD_AUTO = 0, PL_MD_TEXT, PL_MD_NUM, PL_MD_INT };
typedef struct pl_md_colspec {
  char name[96];   /* column name in the output table */
  int kind;        /* PL_MD_AUTO: number when every non-missing cell is one, else text */
  double factor;   /* multiplier for numbers (unit conversion); 0 means 1 */
  int keep_raw;    /* also keep the original text in NAME_raw */
  const char *doc; /* column documentation, or NULL */
} pl_md_colspec;

/* Called once per header cell; `spec` arrives filled with the snake_case name
** and PL_MD_AUTO.  `ud` is passed through. */
typedef void (*pl_md_mapfn)(void *ud, int col, const char *hdr, size_t n, pl_md_colspec *spec);

/* Reads one table.  On entry `header` is the header row just read from c (its
** line number is c->lineno) and the next line is the delimiter row.  Reads body
** rows until the first line that is not a row (left unread).  PL_MD_NUM and
** PL_MD_INT cells must hold numbers (or a missing marker); a row with another
** cell count is an error.  Columns with duplicate names get "_2", "_3", ....
** Adds a `line` column (input line of each row).  Returns the new table, or
** NULL with err set. */
pl_table *pl_md_read_table(pl_lines *c, const pl_line *header, const char *tname, pl_md_mapfn map, void *ud,
                           pl_err *err);
/* The same with --lenient: when o->lenient is set, a malformed body row is
** left out and listed in p's diagnostics instead of failing the table. */
struct pl_parse_opts;
struct pl_profile;
pl_table *pl_md_read_table_lenient(pl_lines *c, const pl_line *header, const char *tname, pl_md_mapfn map, void *ud,
                                   const struct pl_parse_opts *o, struct pl_profile *p, pl_err *err);

#endif

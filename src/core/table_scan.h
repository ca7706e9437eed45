/*
** table_scan.h -- running (scan) column operations of the table engine:
** each row's result depends on the rows before it.  Bound as column
** methods in src/l_column.c; documented in docs/table-api.md.
*/
#ifndef PL_TABLE_SCAN_H
#define PL_TABLE_SCAN_H
#include "table.h"

/* Running maximum: row i is the largest value of rows 1..i that is not
** missing (missing until the first value).  Integer columns stay integer
** (exact); numbers give numbers.  NULL + err for string and boolean
** columns.  A one-column table `name`. */
pl_table *pl_vec_cummax(const char *name, const pl_table *t, int col, pl_err *err);

/* Running sum: row i is the sum of the values of rows 1..i that are not
** missing (0 before the first one).  Integer columns stay integer while
** the sum fits int64 (past it the whole column becomes doubles); numbers
** are summed left to right.  NULL + err for strings and booleans. */
pl_table *pl_vec_cumsum(const char *name, const pl_table *t, int col, pl_err *err);

/* Gather: row i is column col of t at row idx[i] (1-based row numbers in
** the integer column ic of it), missing where idx[i] is missing.  The
** result has it's length and t's type (strings share t's pool).  NULL +
** err when a row number is out of range (*bad = its position). */
pl_table *pl_vec_at(const char *name, const pl_table *t, int col, const pl_table *it, int ic, size_t *bad, pl_err *err);


/* Lookup: row i is the 1-based row of the first value of column col of t
** equal to value i of column qc of q (missing where none is, or where the
** value is missing).  Integers exactly, numbers by value (an integer
** column against a number column too), strings by content, booleans as
** booleans; one hash pass over t and one over q.  NULL + err when one side
** is strings and the other not. */
pl_table *pl_vec_index_of(const char *name, const pl_table *t, int col, const pl_table *q, int qc, pl_err *err);

/* Sorted search (NumPy's searchsorted): row i is the number of values of
** column col of t that are below value i of column qc of q (right = 0), or
** at most it (right = 1): where it would be inserted to keep col sorted,
** so with right = 1 the 1-based row of the last value <= it (0: none).
** Missing where the value is missing.  Integers compare exactly, numbers
** (either side) as doubles.  NULL + err when col is not sorted ascending,
** holds a missing value or strings, or q's column holds strings. */
pl_table *pl_vec_searchsorted(const char *name, const pl_table *t, int col, const pl_table *q, int qc, int right,
                              pl_err *err);

/* ---- reductions ---------------------------------------------------------- */

/* A column reduced over its rows that are not missing and, with a mask
** (a boolean column of t's length; NULL: none), where the mask is true. */
typedef struct pl_col_summary {
  size_t n;           /* the rows counted */
  double sum;         /* the values as doubles, compensated (Neumaier) left to right */
  double min, max;    /* of those doubles; +inf and -inf when n == 0 */
  int64_t isum;       /* integer columns: the exact sum, */
  int isum_over;      /* or 1 when it leaves int64 (then use sum) */
  int64_t imin, imax; /* integer columns: the exact extremes (n > 0) */
} pl_col_summary;
/* Fills *out for column col of t; a string column is only counted. */
void pl_col_reduce(const pl_table *t, int col, const pl_column *where, pl_col_summary *out);
/* How many values of the boolean column col of t are true. */
size_t pl_col_count_true(const pl_table *t, int col);

#endif

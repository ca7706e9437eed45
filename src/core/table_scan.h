/*
** table_scan.h -- running (scan) column operations of the table engine:
** each row's result depends on the rows before it.  Bound as column
** methods in src/l_column.c; documented in docs/table.md.
*/
#ifndef PL_TABLE_SCAN_H
#define PL_TABLE_SCAN_H
#include "table.h"

/* Running maximum: row i is the largest value of rows 1..i that is not
** missing (missing until the first value).  Integer columns stay integer
** (exact); numbers give numbers.  NULL + err for string and boolean
** columns.  A one-column table `name`. */
pl_table *pl_vec_cummax(const char *name, const pl_table *t, int col, pl_err *err);

#endif

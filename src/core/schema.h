/*
** schema.h -- the standard tables' columns, defined once.
**
** A standard table (kernels, kernel_summary, runtime, memcpy, ...) has the
** same name, and its standard columns the same names, types and units, in
** every format that provides it; that is what lets a recipe run on any input
** that has the tables it needs.  This file is the one place those columns
** are declared: parsers create them with pl_std_col (type and doc from here),
** docs/standard-tables.md is printed from here (pl_schema_markdown; `build/test_schema print`),
** and tests/c/test_schema.c checks every format's output against it.
**
** A format may add columns of its own beside the standard ones (tool
** metrics, raw text); those it declares with pl_table_add_doc_col.
** Conventions: times and durations are int64 nanoseconds on every timeline
** (start_ns, end_ns, duration_ns); `device` is an integer index (0, 1, ...)
** and the device's name, where the input gives one, is `device_name`.
*/
#ifndef PL_SCHEMA_H
#define PL_SCHEMA_H

#include "format.h"
#include "table.h"

typedef struct pl_std_column {
  const char *table; /* standard table name */
  const char *name;  /* column name */
  pl_type type;
  const char *unit; /* ns, bytes, percent, ...; "" when none */
  const char *doc;  /* one line: what a value means */
} pl_std_column;

typedef struct pl_std_table {
  const char *name;
  const char *row; /* what one row is */
} pl_std_table;

/* The standard tables, in documentation order. */
const pl_std_table *pl_schema_tables(size_t *n);
/* Standard column i (0, 1, ...; grouped by table in the order of
** pl_schema_tables) in *out: 1, or 0 past the last. */
int pl_schema_column(size_t i, pl_std_column *out);
/* The standard column `name` of table `table` in *out: 1, or 0 when the
** schema has none. */
int pl_schema_find(const char *table, const char *name, pl_std_column *out);

/* Adds standard column `name` to t (whose name is a standard table's), with
** the schema's type and doc (`doc`, when not NULL, replaces the schema's
** for this format).  A name the input already took with another type gets
** "_2", ... (pl_table_add_col_unique).  Returns the column index; -1 when
** the schema has no such column (a programming error: the caller names
** standard columns only). */
int pl_std_col(pl_table *t, const char *name, const char *doc);
/* A declarative column list: the schema gives the type of a standard
** column (the `type` here is for the format's own columns), `doc` the
** format's description (NULL: the schema's). */
typedef struct pl_coldef {
  const char *name;
  pl_type type;
  const char *doc;
} pl_coldef;
/* Adds defs[0..n) to t: standard columns by pl_std_col, the others by
** pl_table_add_doc_col; cols[i] (cols may be NULL) gets each index. */
void pl_add_cols(pl_table *t, const pl_coldef *defs, size_t n, int *cols);
/* A new table `name` holding columns defs[0..n) (pl_add_cols; cols may be
** NULL), sharing string pool `pool` when not NULL; NULL when the parse
** options do not want the table (pl_want_table): a parser builds no column
** of a table nobody reads. */
pl_table *pl_table_declare(const pl_parse_opts *o, const char *name, pl_pool *pool, const pl_coldef *defs, size_t n,
                           int *cols);

/* docs/standard-tables.md: the schema as Markdown, appended to out. */
void pl_schema_markdown(pl_buf *out);

#endif

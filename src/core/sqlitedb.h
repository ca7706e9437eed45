/*
** sqlitedb.h -- the one way the C core reads a SQLite database (Nsight
** Systems exports, rocprofv3's rocpd, rocprof's KERN database): through
** libsqlite3, read-only and immutable (file:PATH?immutable=1), or an
** in-memory image by sqlite3_deserialize, with defensive settings on (no
** views, no triggers, untrusted schema, cell size checks).  Tables and
** columns are discovered at run time (sqlite_master, PRAGMA table_info).
**
** The code lives in fmt_nsys_sqlite.c, which defined it first; a reader of
** another SQLite format fills a pl_sqlite (in, p, o, err, pool, redo) and
** calls pl_sqlite_open / pl_sqlite_close around its queries.
*/
#ifndef PL_SQLITEDB_H
#define PL_SQLITEDB_H

#include <sqlite3.h>
#include "format.h"

typedef struct pl_sqlite_str {
  int64_t id;
  size_t off;
  uint32_t n;
  uint32_t pool, strip;
} pl_sqlite_str;

typedef struct pl_sqlite {
  sqlite3 *db;
  const pl_input *in;
  pl_profile *p;
  const pl_parse_opts *o;
  pl_err *err;
  pl_pool *pool;
  char **tabs;
  size_t ntabs; /* tables of sqlite_master, sorted by name */
  pl_sqlite_str *str;
  size_t nstr;       /* nsys: StringIds, sorted by id */
  pl_buf text;       /* their bytes */
  int dense;         /* str[i].id == i for every i */
  size_t rows;       /* rows read, for the interrupt check */
  const char *where; /* the table being read, for errors */
  const char *redo;  /* what to run again for a damaged file (NULL: nsys export) */
} pl_sqlite;

/* Checks the header, opens the database read-only and lists its tables;
** 0, or -1 with x->err set. */
int pl_sqlite_open(pl_sqlite *x);
void pl_sqlite_close(pl_sqlite *x);
/* Sets x->err from a SQLite result code (damaged file, interrupt); -1. */
int pl_sqlite_fail(pl_sqlite *x, int rc);
/* SELECT of `want` from `table` (NULL for a column it lacks), then `tail`;
** *present gets a bit per column found (may be NULL). */
int pl_sqlite_select(pl_sqlite *x, const char *table, const char *const *want, size_t nwant, const char *tail,
                     sqlite3_stmt **st, uint64_t *present);
/* Columns of a table (malloc'd names; pl_sqlite_free_cols); -1 on error. */
int pl_sqlite_cols(pl_sqlite *x, const char *table, char ***out, size_t *n);
void pl_sqlite_free_cols(char **c, size_t n);
/* The next row (1), or 0 at the end / on an error (*rc says) or interrupt. */
int pl_sqlite_step(pl_sqlite *x, sqlite3_stmt *st, int *rc);
/* An integer cell (a REAL is rounded; NULL/text: PL_INT_NA). */
int64_t pl_sqlite_int(sqlite3_stmt *st, int i);
/* A text cell interned in x->pool (0 when NULL or not text). */
uint32_t pl_sqlite_text(pl_sqlite *x, sqlite3_stmt *st, int i);
/* Appends s as a quoted SQL identifier. */
void pl_sqlite_quote(pl_buf *b, const char *s);

/* 1 when the open database holds rocprof tables (rocpd_*, KERN): fmt_rocpd.c */
int pl_rocpd_is_rocprof_db(pl_sqlite *x);
#endif

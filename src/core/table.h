/*
** table.h -- the columnar table engine of the C core.
**
** A table is a list of typed columns of equal length.  Column types:
**   PL_NUM   double; NaN is "missing"
**   PL_INT   int64;  PL_INT_NA (INT64_MIN) is "missing"
**   PL_BOOL  one byte: 0 false, 1 true, PL_BOOL_NA (2) missing; Lua sees booleans
**   PL_STR   uint32 ids into the table's interned string pool; 0 is "missing"
** Tables derived from another one (take, sort, select, group) share its
** string pool, which is reference counted.  All heavy operations (sorting,
** top-k, grouping, joining, writing) run here, not in Lua.
**
** Building rows: parsers call pl_row_put_* for the columns they have and then
** pl_row_end(); columns not set in that row are filled with "missing".  A
** column added after rows exist is back-filled with "missing".
*/
#ifndef PL_TABLE_H
#define PL_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "pl_util.h"

#define PL_INT_NA  INT64_MIN
#define PL_BOOL_NA 2
/* A parsed double as int64: PL_INT_NA when it is NaN or outside int64
** (a plain cast is undefined behaviour there). */
static inline int64_t pl_int_of(double v) {
  return v >= -9223372036854775807.0 && v < 9223372036854775808.0 ? (int64_t)v : PL_INT_NA;
}

typedef enum pl_type { PL_NUM = 0, PL_INT = 1, PL_BOOL = 2, PL_STR = 3 } pl_type;
const char *pl_type_name(pl_type t);

#include "pool.h"

/* ---- columns ----------------------------------------------------------- */
typedef struct pl_column {
  char *name;
  char *doc; /* optional one-line description (units, meaning) */
  pl_type type;
  size_t len, cap;
  union {
    double *num;
    int64_t *i64;
    uint32_t *str;
    uint8_t *b;
    void *any;
  } v;
  int *shared; /* NULL: the column owns v; else the count of the
                            ** columns holding this same buffer (an alias made
                            ** by pl_table_add_alias); a write or growth first
                            ** gives the column its own copy */
} pl_column;

typedef struct pl_table {
  char *name;
  size_t nrows;
  size_t ncols, capcols;
  pl_column **cols;
  pl_pool *pool;
  int rowopen; /* a row is being built (some put since last end) */
} pl_table;

pl_table *pl_table_new(const char *name);
/* A new empty table sharing src's string pool (for derived tables). */
pl_table *pl_table_new_like(const char *name, const pl_table *src);
void pl_table_free(pl_table *t);
void pl_table_set_name(pl_table *t, const char *name);

/* Column lookup and creation.  pl_table_col returns the index or -1.
** pl_table_add_col returns the index of a new column (back-filled), or the
** existing one when a column of that name and type exists, or -1 when a
** column of that name exists with another type. */
int pl_table_col(const pl_table *t, const char *name);
int pl_table_add_col(pl_table *t, const char *name, pl_type type);
void pl_table_set_doc(pl_table *t, int col, const char *doc);
/* Like pl_table_add_col but never fails: when `name` is taken by a column of
** another type (an input's own header cell, say), the new column is named
** "name_2", "name_3", ...  Returns a valid column index. */
int pl_table_add_col_unique(pl_table *t, const char *name, pl_type type);
/* Adds a column without looking for one of the same name (the caller makes
** names unique: a CSV header of 100,000 columns would otherwise take
** 10^10 comparisons). */
int pl_table_append_col(pl_table *t, const char *name, pl_type type);
/* pl_table_add_col_unique, then pl_table_set_doc(doc). */
int pl_table_add_doc_col(pl_table *t, const char *name, pl_type type, const char *doc);
/* Takes column c (c->len == nrows, storage malloc'd) into t: in place of
** t's column of the same name, else at the end. */
void pl_table_set_col(pl_table *t, pl_column *c);
/* Puts into t (in place of its column of that name, else at the end) a
** column `name` holding the values of column col of src (of t's length),
** sharing its storage with no copy until either is written to or grows
** (the alias of pl_table_add_alias, across tables).  A string column must
** come from a table of the same string pool. */
void pl_table_put_shared(pl_table *t, const char *name, const pl_table *src, int col);
/* The same for a column of any table (of t's length): shared where it can
** be (not text, or the same pool), else copied with each distinct text
** interned once into t's pool. */
void pl_table_put_col_from(pl_table *t, const char *name, const pl_table *src, int col);
/* Detaches column col from t (shifting the later ones) and returns it. */
pl_column *pl_table_take_col(pl_table *t, int col);
/* A column `name` at index `at` (0..ncols) holding the same values as
** column src, sharing its storage (no copy) until either is written to or
** grows.  Returns its index, or -1 when the name is taken. */
int pl_table_add_alias(pl_table *t, const char *name, int src, int at);
/* Removes a column (shifts the later ones). */
void pl_table_drop_col(pl_table *t, int col);
/* Changes a column's type where that loses nothing (INT -> NUM, and the
** reverse when every value is integral and within 2^53); 0 on success. */
int pl_table_retype(pl_table *t, int col, pl_type to);

/* Row building. */
void pl_row_put_num(pl_table *t, int col, double v);
void pl_row_put_int(pl_table *t, int col, int64_t v);
void pl_row_put_bool(pl_table *t, int col, int v);
void pl_row_put_str(pl_table *t, int col, const char *s, size_t n);
void pl_row_put_strid(pl_table *t, int col, uint32_t id); /* id of t->pool */
void pl_row_end(pl_table *t);
/* Forgets the row being built (values put since the last pl_row_end). */
void pl_row_discard(pl_table *t);

/* Fast row appends, for parsers that set every column of every row (no row
** may be open): v[i] is column i's value in the column's own type (d for
** PL_NUM, i for PL_INT and PL_BOOL, s = a pool id for PL_STR), missing
** values written as the type's marker (NAN, PL_INT_NA, 0; PL_INT_NA for a
** missing boolean too). */
typedef union pl_cell {
  double d;
  int64_t i;
  uint32_t s;
} pl_cell;
void pl_table_append(pl_table *t, const pl_cell *v);
/* Room for `rows` rows in every column (a size hint; never shrinks). */
void pl_table_reserve(pl_table *t, size_t rows);
/* Asks the system to back each column buffer of at least min_bytes with
** huge pages, but for its last eighth (2 MiB at least), which stays on
** small pages: a table filled to a reserved size then takes one page
** fault per 2 MiB instead of per 4 KiB, and fewer TLB misses, and where
** the values end as reserved no partly written huge page is resident past
** them.  (A realloc past the reservation advises the whole block again,
** so that it still moves without a copy: bigmem.c.)
** pl_table_trim gives back the pages past each column's values (a huge
** page's unused tail, the unused part of a reservation); the capacity is
** kept (those pages read as zeros if touched again). */
void pl_table_hugepages(pl_table *t, size_t min_bytes);
/* For a table advised so that expects to end near `rows` rows: the pages
** of each such column from the huge page row `rows` falls in (or, where
** the values written reach it already, the next) to the buffer's end are
** small ones again, so that the last huge page is not left partly
** written (up to 2 MiB a column resident past the values at the end of a
** read: 6-10 MB of the 1 GB Kineto trace's peak).  The buffer is then two
** mappings: growing it past its capacity copies it (pl_mem_realloc). */
void pl_table_hugepages_end(pl_table *t, size_t min_bytes, size_t rows);
void pl_table_trim(pl_table *t);
/* pl_table_reserve, but a column whose values so far are all missing (of
** PL_MEM_BIG bytes or more reserved) gets storage that reads as missing
** until written and costs no memory until then (pl_mem_alloc_fill):
** columns a parser makes for every input and this input leaves empty
** cost nothing.  A value put later costs a 4 KiB page where it lands.
** For parsers that reserve once the first rows show which columns fill
** (the Kineto reader: 33 MB of the 1 GB bench trace's tables). */
void pl_table_reserve_sparse(pl_table *t, size_t rows);
/* Whether column c has such storage: its cells past len read as missing,
** so a writer may skip storing a missing value there (fast_row,
** pl_par_copy_rows).  pl_table_populate and pl_table_hugepages leave it
** alone; pl_row_discard puts the marker back in the cells it drops. */
int pl_column_fills(const pl_column *c);
/* The type's missing marker as 8 bytes, bit for bit as a column stores it
** (an 8-byte cell's whole value; a boolean's or string id's repeated):
** pl_mem_alloc_fill's pattern, and what a writer may skip storing into a
** column that fills. */
uint64_t pl_missing_bits(pl_type type);
/* Room for n values in column c (its len is unchanged): the table's growth
** rule, doubling to a million values and by half after that. */
void pl_column_reserve(pl_column *c, size_t n);
/* Asks the system for the memory of rows [from, to) of every column (within
** what each has reserved) in one call per column, instead of one page fault
** per page as the values are stored: a large table being filled spends a
** good part of its time in page faults otherwise.  0, or -1 where the system
** cannot (the caller then stops asking). */
int pl_table_populate(pl_table *t, size_t from, size_t to);

/* Cell access (row is 0-based). */
double pl_cell_num(const pl_table *t, int col, size_t row); /* any type -> double; NaN if missing/str */
int64_t pl_cell_int(const pl_table *t, int col, size_t row);
const char *pl_cell_str(const pl_table *t, int col, size_t row, size_t *len); /* NULL if missing */
int pl_cell_missing(const pl_table *t, int col, size_t row);
/* Text of any cell as the writers print it; "" for missing. */
int pl_cell_text(const pl_table *t, int col, size_t row, char *out, size_t outsz);

/* ---- derived tables ---------------------------------------------------- */
/* Rows idx[0..n) of t, in that order (indexes must be < nrows). */
pl_table *pl_table_take(const pl_table *t, const size_t *idx, size_t n);
/* The given columns only, in that order. */
pl_table *pl_table_select(const pl_table *t, const int *cols, size_t n);
/* The rows idx[0..n) of only the columns cols[0..ncols), in that order (a
** column named twice is taken once): take and select in one copy. */
pl_table *pl_table_take_cols(const pl_table *t, const size_t *idx, size_t n, const int *cols, size_t ncols);
/* A deep copy. */
pl_table *pl_table_copy(const pl_table *t);
/* The heap memory the tables ts[0..n) use together, in bytes: their
** column values and string pools (in use: not the spare capacity), each buffer or pool
** shared between them (aliases, derived tables) counted once, plus their
** column and name records.  What a cache should charge for them. */
size_t pl_tables_memory(const pl_table *const *ts, size_t n);

typedef struct pl_sortkey {
  int col;
  int desc;
} pl_sortkey;
/* Stable sort; returns a malloc'd permutation of 0..nrows-1.  Missing values
** sort last in either direction. */
size_t *pl_table_order(const pl_table *t, const pl_sortkey *keys, size_t nkeys);
/* The n largest (desc=1) or smallest rows by one column, ties in row order. */
size_t *pl_table_topk(const pl_table *t, int col, size_t n, int desc, size_t *nout);

typedef enum pl_aggop {
  PL_AGG_COUNT,
  PL_AGG_SUM,
  PL_AGG_MEAN,
  PL_AGG_MIN,
  PL_AGG_MAX,
  PL_AGG_QUANTILE,
  PL_AGG_FIRST,
  PL_AGG_SD,
  PL_AGG_COUNT_DISTINCT,
  PL_AGG_WMEAN,
  PL_AGG_LAST,
  PL_AGG_IDS,
  PL_AGG_FIRST_ROW
} pl_aggop;
typedef struct pl_agg {
  const char *out; /* output column name */
  pl_aggop op;
  int col;                /* source column (ignored for COUNT) */
  double q;               /* for QUANTILE, 0..1 */
  int col2;               /* WMEAN: the weight column */
  const pl_column *where; /* NULL, or a PL_BOOL column of nrows values: only
                            ** rows where it is true (1) count for this aggregate */
} pl_agg;
/* Groups by the key columns (in order of first appearance) and computes the
** aggregates; missing values are skipped by every aggregate but COUNT.
** WMEAN is sum(col*w)/sum(w) over rows where both are present (missing when
** sum(w) is 0); LAST the last value that is not missing; IDS the 1-based row
** number of the group's first row (the binding hands out the full lists,
** see pl_table_group_ids).  A group with no row passing `where` gets 0 for
** COUNT and SUM, missing for the others. */
pl_table *pl_table_group(const pl_table *t, const int *keys, size_t nkeys, const pl_agg *aggs, size_t naggs,
                         pl_err *err);

typedef enum pl_joinkind { PL_JOIN_INNER, PL_JOIN_LEFT } pl_joinkind;
/* Joins a and b where a.akeys[i] == b.bkeys[i].  Output: all columns of a,
** then b's non-key columns (renamed with suffix when the name clashes). */
pl_table *pl_table_join(const pl_table *a, const pl_table *b, const int *akeys, const int *bkeys, size_t nkeys,
                        pl_joinkind kind, const char *suffix, pl_err *err);
/* Distinct values of one column, in order of first appearance. */
pl_table *pl_table_unique(const pl_table *t, int col);
/* Group ids: gid[i] (size nrows, caller's) gets row i's group, numbered in
** order of first appearance; *first (malloc'd) the first row of each group.
** Returns the number of groups.  nkeys 0: one group. */
size_t pl_table_group_ids(const pl_table *t, const int *keys, size_t nkeys, size_t *gid, size_t **first);
/* Long to wide: one row per distinct index tuple, one column per distinct
** value of `colkey` (named by its text, in order of first appearance), cells
** the aggregate `op` of `val` over the rows of that (index, column) pair;
** missing where a pair has no row (0 for COUNT).  NULL with err set when
** the aggregate does not apply to the column. */
pl_table *pl_table_pivot(const pl_table *t, const int *index, size_t nindex, int colkey, int val, pl_aggop op,
                         pl_err *err);

/* ---- vector operations (table_vec.c) -------------------------------------
** Each returns a new one-column table of t's length (sharing the pool of the
** first column operand) named `name`.  An operand is a column of a table or
** a scalar (t == NULL: type PL_NUM with d, PL_INT with i, PL_STR with s/slen,
** PL_BOOL with i). */
typedef struct pl_operand {
  const pl_table *t;
  int col;
  pl_type type;
  double d;
  int64_t i;
  const char *s;
  size_t slen;
} pl_operand;
typedef enum pl_vop {
  PL_V_ADD,
  PL_V_SUB,
  PL_V_MUL,
  PL_V_DIV,
  PL_V_MIN,
  PL_V_MAX, /* arithmetic */
  PL_V_IDIV,
  PL_V_MOD, /* floor division, modulo (Lua's // and %) */
  PL_V_EQ,
  PL_V_NE,
  PL_V_LT,
  PL_V_LE,
  PL_V_GT,
  PL_V_GE, /* comparisons */
  PL_V_AND,
  PL_V_OR /* booleans */
} pl_vop;
/* Length of the operand (SIZE_MAX for a scalar). */
size_t pl_operand_len(const pl_operand *a);
/* Arithmetic: both numeric; INT op INT stays INT for ADD SUB MUL MIN MAX
** (a column that overflows int64 becomes NUM), DIV gives NUM; a missing
** operand gives a missing result.  IDIV and MOD as Lua's // and %
** (floor division; the remainder takes the divisor's sign); INT with INT
** stays INT, an integer division by zero gives a missing value.  Comparisons: numbers by value, strings
** by content (bytewise order), booleans as 0/1; a missing side gives false.
** AND/OR on booleans with Kleene logic (false & missing = false, true |
** missing = true, else missing).  NULL + err on a type mismatch. */
pl_table *pl_vec_binary(const char *name, const pl_operand *a, const pl_operand *b, pl_vop op, pl_err *err);
/* NOT (missing stays missing). */
pl_table *pl_vec_not(const char *name, const pl_table *t, int col, pl_err *err);
/* abs; clip to [lo, hi] (NaN bound: no bound); numeric columns; INT stays INT
** when the bounds are integral. */
pl_table *pl_vec_abs(const char *name, const pl_table *t, int col, pl_err *err);
/* floor / ceil (up = 1): an INT column when every value fits int64 (as
** Lua's math.floor gives an integer), else NUM; an INT column is copied. */
pl_table *pl_vec_round(const char *name, const pl_table *t, int col, int up, pl_err *err);
pl_table *pl_vec_clip(const char *name, const pl_table *t, int col, double lo, double hi, pl_err *err);
/* Membership in a set given as a column of `set` (any length): strings by
** content, numbers by value; missing is never a member. */
pl_table *pl_vec_isin(const char *name, const pl_table *t, int col, const pl_table *set, int setcol, pl_err *err);
/* Column col of t where `mask` is true, missing elsewhere. */
pl_table *pl_vec_keep(const char *name, const pl_table *t, int col, const pl_column *mask);
/* Rows where the boolean column `mask` (of t's length) is true. */
pl_table *pl_table_filter(const pl_table *t, const pl_column *mask);
/* The rows where mask is true, of only the columns cols (select + filter,
** copying only the rows kept of the columns named). */
pl_table *pl_table_filter_cols(const pl_table *t, const pl_column *mask, const int *cols, size_t ncols);
/* The distinct pool ids a string column uses: out[id] = 1 (out has
** pl_pool_count + 1 slots, caller's). */
void pl_column_used_ids(const pl_table *t, int col, unsigned char *out);
/* A one-column table `name` whose row i is row i of column `col` of t. */
pl_table *pl_column_copy(const char *name, const pl_table *t, int col);

/* A one-column table `name` of t's length (sharing t's pool), every row the
** scalar x converted to `type` (a number to PL_INT truncates: the caller
** checks it is integral), or every row missing when x is NULL or missing.
** The caller checks that x's kind fits type (numbers for PL_NUM/PL_INT, a
** string for PL_STR, a boolean for PL_BOOL). */
pl_table *pl_vec_const(const char *name, const pl_table *t, pl_type type, const pl_operand *x);
/* A one-column PL_INT table `name` of t's length: row i holds i + 1. */
pl_table *pl_vec_rownum(const char *name, const pl_table *t);

/* ---- more column expressions (table_vec2.c) ---------------------------- */
/* Column col of t with its missing values replaced by x (a column of t's
** length or a scalar): numbers with numbers (INT with INT stays INT, else
** NUM), strings with strings, booleans with booleans; NULL + err else. */
pl_table *pl_vec_fill(const char *name, const pl_table *t, int col, const pl_operand *x, pl_err *err);
/* A string column: row i is printf(fmt, ops[0][i], ...) (conversions
** d i o u x X e E f F g G a A s with flags, width, precision; %% a percent
** sign); integer conversions take numbers that are integral, %s strings
** and numbers (as Lua's tostring writes them).  A row where any column
** operand is missing is missing.  At least one operand is a column. */
pl_table *pl_vec_sprintf(const char *name, const char *fmt, const pl_operand *ops, size_t nops, pl_err *err);

/* ---- writers ----------------------------------------------------------- */
/* RFC 4180 CSV with a header row; numbers at full precision. */
void pl_table_write_csv(const pl_table *t, pl_buf *out);
/* JSON array of row objects; NaN/missing -> null; numbers round-trip. */
void pl_table_write_json(const pl_table *t, pl_buf *out);
/* The same with each row's line starting with row_indent (" " above) and
** the closing "]" on a line of its own after end_indent ("" above): a
** table nested in an indented JSON document without re-indenting it. */
void pl_table_write_json_indent(const pl_table *t, pl_buf *out, const char *row_indent, const char *end_indent);
/* pl_table_write_json_indent handing the text to sink(ctx, data, n) in
** pieces of about a megabyte (out is the working buffer, left empty):
** returns 0 or the sink's first nonzero return, where writing stopped */
int pl_table_write_json_sink(const pl_table *t, pl_buf *out, const char *row_indent, const char *end_indent,
                             int (*sink)(void *ctx, const char *data, size_t n), void *ctx);
/* Human layouts.  style: 0 aligned text, 1 Markdown.  max_rows 0 = all;
** max_width 0 = unlimited (longer text cells and headers are cut with "…";
** numbers are never cut). */
typedef struct pl_fmtopts {
  int markdown;
  size_t max_rows;
  size_t max_width; /* per cell, in characters */
  int digits;       /* significant digits for non-integral numbers (default 6) */
} pl_fmtopts;
void pl_table_format(const pl_table *t, const pl_fmtopts *o, pl_buf *out);

/* Number text for humans: integral values without decimals and with no
** exponent below 1e15; others with `digits` significant digits. */
int pl_fmt_human(char *out, size_t outsz, double v, int digits);

#endif

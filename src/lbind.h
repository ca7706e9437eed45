/*
** lbind.h -- what the Lua binding files (src/l_*.c) share: the userdata
** type names and the helpers that turn Lua arguments into C data.
** Only binding files and the host include this; the core never does.
** Bindings call the core and Lua, never the host: what the host lends them
** (interrupts, progress, its wording) comes through pl_l_parsehooks.
*/
#ifndef PL_LBIND_H
#define PL_LBIND_H

#include <lua.h>
#include <lauxlib.h>
#include "table.h"
#include "profile.h"
#include "format.h"

#include <assert.h>
#include <stdint.h>

/* Stack balance where a binding's stack is long (a loop that pushes and
** pops per row): the top must be back at `top`.  Checked in builds without
** NDEBUG (the Debug/ASan build runs the tests with it). */
#ifdef NDEBUG
#define PL_L_BALANCE(L, top) ((void)(L), (void)(top))
#else
#define PL_L_BALANCE(L, top) assert(lua_gettop(L) == (top))
#endif

#define PL_TABLE_T  "perflab.Table"
#define PL_COLUMN_T "perflab.Column"

/* A table userdata holds a pointer to the C table it owns.  frozen: a
** profile's table; calls that change a table in place (add_column, with,
** drop, rename, name(new)) work on a copy of it and return the copy. */
typedef struct pl_ltable {
  pl_table *t;
  int frozen;
} pl_ltable;
/* A column userdata: the owning table object is kept alive in user value 1. */
typedef struct pl_lcolumn {
  pl_table *t;
  int col;
} pl_lcolumn;

/* ---- table and column objects (lbind.c) ---------------------------------- */

pl_table *pl_l_checktable(lua_State *L, int arg);
pl_table *pl_l_totable(lua_State *L, int arg); /* NULL if not a table object */
/* [...] -> [... T]: a new table object that takes ownership of t, in every
** case: if the object cannot be made (no memory), t is freed and the error
** raised, so a caller never loses a table it built. */
void pl_l_pushtable(lua_State *L, pl_table *t);
/* The table at arg, made writable: a frozen table is replaced at arg by a
** new table object holding a copy (returned). */
pl_table *pl_l_writable(lua_State *L, int arg);
/* Names a derived table "OP(SOURCE)". */
void pl_l_derived_name(pl_table *r, const char *op, const pl_table *src);

/* The column object at arg, or an argument error. */
pl_lcolumn *pl_l_checkcolumn(lua_State *L, int arg);
/* [...] -> [... C]: a column object over column col of the table object
** at tidx (C keeps that object alive). */
void pl_l_pushcolumn(lua_State *L, int tidx, int col);
/* [...] -> [... C]: a column object over column 0 of r, a new table owned
** from here (as pl_l_pushtable). */
void pl_l_pushresult(lua_State *L, pl_table *r);
/* The value at idx as an operand of a column expression: a column, a
** number, a string, a boolean or nil (a missing number). */
void pl_l_tooperand(lua_State *L, int idx, pl_operand *op);
/* [...] -> [... T]: a one-column table `name` of the values of the Lua
** array at idx (its type inferred), kept alive by the object pushed. */
pl_table *pl_l_arraytable(lua_State *L, int idx, const char *name);
/* The boolean column (mask) at arg, of n rows, or an error naming fn. */
const pl_column *pl_l_checkmask(lua_State *L, int arg, size_t n, const char *fn);

/* ---- cells, rows, names and sort keys (lbind.c) ---------------------------- */

/* Pushes "no column 'NAME' in table 'T' (columns: a, b, ...)"; returns it. */
const char *pl_l_push_nocol(lua_State *L, const pl_table *t, const char *name);
/* The index of the column named at arg, or an argument error. */
int pl_l_checkcol(lua_State *L, pl_table *t, int arg);
void pl_l_pushcell(lua_State *L, const pl_table *t, int col, size_t row);
void pl_l_pushrow(lua_State *L, const pl_table *t, size_t row);
void pl_l_putvalue(lua_State *L, pl_table *t, int col, int idx);
pl_type pl_l_infer_type(lua_State *L, int idx, pl_type cur, int *seen);
size_t pl_l_read_sortkeys(lua_State *L, pl_table *t, int first, int last, pl_sortkey *keys, size_t max);
/* Key names sorted in C, as table.sort would order them (strings by
** strcoll, numbers by value; a mix is an error), without calling the global
** `table.sort` that a script may have replaced.
** The array at idx (1..n) is rewritten in order.  [...] -> [...] */
void pl_l_sort_names(lua_State *L, int idx, int n);
/* Calls fn (at fnidx) with row i of t and i, as pushed by the caller; on
** an error raises "WHAT, row I, column 'C': MESSAGE", C being the column
** the callback read last before failing (found by calling it once more on
** that row through a proxy that notes its reads).  Error objects that are
** not strings pass through unchanged.  [... fn row i] -> [... result] */
void pl_l_call_row(lua_State *L, int fnidx, const pl_table *t, const char *what, size_t row);

#define PL_MAX_GROUP_KEYS 64 /* key columns of group_by and join */

/* ---- times, values and row masks (lbind.c; the interval bindings) ------ */

/* A float time rounded to integer ns; an argument error at arg ("WHAT I
** is not a finite time") when it is out of the int64 range or NaN. */
int64_t pl_l_roundts(lua_State *L, int arg, const char *what, size_t i, lua_Number nv);
/* The number at arg as an integer time (integers exactly, floats rounded). */
int64_t pl_l_checktime(lua_State *L, int arg);
/* int64 times of an array or column at arg (at most limit of them, *n set),
** in a box pushed on the stack; a missing or non-number value is an
** argument error. */
int64_t *pl_l_checktimes(lua_State *L, int arg, size_t limit, size_t *n);
/* Values of a source at arg: a column object or a Lua array (nil holes
** allowed), read as int64 times (iv) or doubles (dv), either may be NULL,
** with miss[i] = 1 for a missing value (NaN included); n values (a column
** shorter than n is missing beyond its end; an array is read at 1..n).
** The arrays are boxes pushed on the stack. */
void pl_l_readvals(lua_State *L, int arg, size_t n, int64_t **iv, double **dv, unsigned char **miss);
/* The index of column name of t; an argument error at arg naming the
** column and table when it has none. */
int pl_l_argcol(lua_State *L, pl_table *t, const char *name, int arg);
/* [...] -> [... C]: a one-column integer table "name" holding the 1-based
** v[i] + 1 (missing where v[i] < 0), as its column object. */
void pl_l_pushindex(lua_State *L, const char *name, const int64_t *v, size_t n);
/* opts[field] (opts a stack index, 0: none) as skip flags for n rows, in a
** box pushed on the stack: a boolean column (or an array of booleans) that
** keeps the rows where it is true, or a function(row) that keeps the rows
** where it returns a true value.  All zero (every row kept) when absent. */
unsigned char *pl_l_rowmask(lua_State *L, int opts, const char *field, size_t n);
/* Start and end times of the rows of t (the table object at tix): scol
** the start column, ecol the end column, or with isdur a duration column
** (end = start + duration).  Rows with a missing start get skip[i]; a
** missing end or duration gives skip[i] too unless point_ok, where the row
** is a point (end = start).  *s and *e are boxes pushed on the stack. */
void pl_l_rowtimes(lua_State *L, pl_table *t, int tix, const char *scol, const char *ecol, int isdur, int64_t **s,
                   int64_t **e, unsigned char *skip, int point_ok);

/* ---- the Table's other files (l_table_ops.c, l_grouping.c) -------------- */

/* [... methods] -> [... methods]: put the Table methods that make a new
** table from t's rows (filter, order, take, where, pivot, sort_by, top,
** head, slice, select, join, unique) into the methods table at the top.
** Called by luaopen_perflab_table. */
void pl_l_table_ops_open(lua_State *L);
/* t:group_by(key...) -> grouping: the Table method that makes a Grouping.
** [T key...] -> [T key... G] */
int pl_l_tbl_group_by(lua_State *L);
/* [...] -> [...]: makes the Grouping metatable (agg, broadcast).  Called by
** luaopen_perflab_table. */
void pl_l_grouping_open(lua_State *L);

/* ---- perflab.intervals' other file (l_timeline.c) ----------------------- */

/* [... module] -> [... module]: puts the functions over tables of timed
** rows and step series (innermost, enclosed, parents, sum_within,
** step_integral, series_windows, first_window, step_levels) into the
** module table at the top.  Called by luaopen_perflab_intervals. */
void pl_l_timeline_open(lua_State *L);

/* ---- the Column type (l_column.c) --------------------------------------- */

/* [...] -> [...]: makes the Column metatable (methods and operators) and
** puts perflab.table.sprintf into the module table at module.  Called by
** luaopen_perflab_table, the one opener of module 'perflab.table'. */
void pl_l_column_open(lua_State *L, int module);

/* Numbers from a Lua array or a column object, as one contiguous array of
** doubles.  NaN/missing handling: nan_omit=0 raises
** "bad argument #arg to 'fname' (missing value at index i)"; nan_omit=1 skips.
** Raises for an empty result, a non-number element or a string column.
** The returned array is owned by a to-be-freed box pushed on the stack
** (so it is freed even if a later error is raised); returns its pointer. */
double *pl_l_checknumbers(lua_State *L, int arg, size_t *n, int nan_omit);

/* Pushes a Lua table {format, source, meta = {...}, tables = {name = T},
** diagnostics = {{line=, message=}...}} for a profile, moving its tables into
** table objects (p keeps no tables afterwards). */
void pl_l_pushprofile(lua_State *L, pl_profile *p);

/* Raises an argument error at arg naming the first key of the options table
** there that is not in accepted (NULL-terminated) and listing the accepted
** ones: "unknown option 'tabels'; accepted: format, lenient, ...".  Nothing
** when arg is not a table.  The one checker (l_options.c; in Lua
** perflab.options.check). */
void pl_l_checkoptions(lua_State *L, int arg, const char *const accepted[]);

/* luaL_checkoption for a field of the options table at arg: the index in
** lst (NULL-terminated) of opts[key], or of def when the table or the key
** is absent (def must be in lst).  Anything else raises an argument error
** at arg: "option KEY must be "a" or "b"".  [...] -> [...] */
int pl_l_checkfieldoption(lua_State *L, int arg, const char *key, const char *def, const char *const lst[]);

/* What the host lends the bindings that run parsers (perflab.formats),
** kept in the registry of the state.  A bare state (lua_newstate and the
** openers below, no host) has none: parses then run without interrupt,
** progress bar or command-line advice. */
typedef struct pl_l_parsehooks {
  /* before a parse: may set o->interrupt, o->progress and o->progress_ud */
  void (*begin)(pl_parse_opts *o);
  /* after it: e is the error when the parse failed, else NULL; the host may
  ** reword it (a time-out; advice by e->kind) */
  void (*end)(pl_parse_opts *o, pl_err *e);
} pl_l_parsehooks;
/* Sets (h, which must outlive L) or clears (NULL) the hooks of L. */
void pl_l_sethooks(lua_State *L, const pl_l_parsehooks *h);

/* Module openers (one per Lua module; perflab.table's Column half is
** pl_l_column_open above). */
int luaopen_perflab_table(lua_State *L);
int luaopen_perflab_formats(lua_State *L);
int luaopen_perflab_stats(lua_State *L);
int luaopen_perflab_intervals(lua_State *L);
int luaopen_perflab_sys(lua_State *L);
int luaopen_perflab_options(lua_State *L);
int luaopen_perflab_occupancy_calc(lua_State *L);
int luaopen_perflab_opargs(lua_State *L);
int luaopen_perflab_critpath(lua_State *L);

#endif

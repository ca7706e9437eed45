/*
** loadmany.h -- parse several files on N threads (core: plain C and pthreads, no Lua).
**
** A parse in the C core is a pure function of its file (no Lua, no shared
** mutable state), so files are parsed side by side: N pthreads take the
** next file from a shared counter and park each finished profile in its
** slot.  The caller takes the results in file order with pl_many_take,
** which waits for that file only; so a caller can hand each profile to Lua
** as soon as it (and the ones before it) are done, while later files are
** still being parsed.
*/
#ifndef PL_CORE_LOADMANY_H
#define PL_CORE_LOADMANY_H
#include <stddef.h>

#include "format.h"
#include "pl_util.h"
#include "profile.h"

typedef struct pl_many pl_many;


/* Starts parsing paths[0..n) on `jobs` threads (jobs < 1: the core count;
** never more threads than files).  `format` may be NULL (detect).  paths,
** format and `o` (with its tables list) are copied: the caller's may go
** while the threads run (an error unwinding past them).  Progress callbacks
** are not called: several parses cannot share one progress bar. */
pl_many *pl_many_start(const char *const *paths, size_t n, const char *format, const pl_parse_opts *o, int jobs);

/* Waits for file i and returns its profile (the caller owns it), or NULL
** with *err set (the error names the file).  Each i is taken at most once. */
pl_profile *pl_many_take(pl_many *m, size_t i, pl_err *err);

/* Stops handing out files, interrupts parses still running when a result
** was not taken (an error, or the caller gave up), joins the threads and
** frees what was not taken. */
void pl_many_finish(pl_many *m);

#endif

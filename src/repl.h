/*
** repl.h -- the read-eval-print loop (lua.c's algorithm: expression lines
** print their values, a leading '=' works, incomplete chunks read more
** lines, errors print and the session goes on).
*/
#ifndef PL_REPL_H
#define PL_REPL_H
#include <stdio.h>
#include <lua.h>

/* Runs the loop on stdin/stdout/stderr.  interactive: prompts, banner, and
** on a terminal line editing, history and completion.
** Returns 0 when every chunk ran, 1 when any failed. */
int pl_repl(lua_State *L, int interactive);

/* The same loop on the streams given: chunks are read from `in`, values and
** print() output written to `out`, errors to `err`.  Line editing only when
** interactive and both `in` and `out` are terminals. */
int pl_repl_io(lua_State *L, FILE *in, FILE *out, FILE *err, int interactive);

#endif

/*
** repl.h -- the read-eval-print loop (lua.c's algorithm: expression lines
** print their values, a leading '=' works, incomplete chunks read more
** lines, errors print and the session goes on).
*/
#ifndef PL_REPL_H
#define PL_REPL_H
#include <lua.h>

/* Runs the loop on stdin.  interactive: prompts, banner and line editing.
** Returns 0 when every chunk ran, 1 when any failed. */
int pl_repl(lua_State *L, int interactive);

#endif

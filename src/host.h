/*
** host.h -- the host layer shared by main.c, repl.c and (later) the
** embedding library: creating a perflab Lua state, protected calls with
** tracebacks, and the interrupt hook.
*/
#ifndef PL_HOST_H
#define PL_HOST_H

#include <lua.h>

/* A new Lua state with the standard libraries, every perflab module in
** package.preload, and the searcher for the embedded Lua library.
** Returns NULL only when memory is exhausted. */
lua_State *pl_host_newstate(void);
/* Puts the perflab modules into package.preload and the searcher for the
** embedded Lua library into package.searchers of an existing state (what
** pl_host_newstate does after opening the standard libraries; the Lua C
** module perflab.so does it in a stock lua5.4). */
void pl_host_install(lua_State *L);
/* Calls the function below narg arguments with a traceback handler and
** Ctrl-C turned into a Lua error "interrupted".  Returns the lua_pcall code. */
int pl_host_docall(lua_State *L, int narg, int nres);
/* The message handler pl_host_docall uses: perflab.fail{} tables pass
** through as they are, anything else gets a traceback. */
int pl_host_msghandler(lua_State *L);
/* Prints the error at the top of the stack to stderr ("perflab: msg"). */
int pl_host_report(lua_State *L, int status);
/* Ctrl-C handling: installs the SIGINT handler that arms a count hook. */
void pl_host_catch_sigint(lua_State *L);
void pl_host_release_sigint(void);

/* Embedded files (generated at build time). */
const char *pl_host_embedded(const char *path, size_t *len);

#endif

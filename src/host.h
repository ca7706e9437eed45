/*
** host.h -- creating perflab Lua states: the one list of built-in modules
** (into package.preload), the searcher for the Lua library embedded at
** build time, and the embedded files themselves.  Used by main.c, the
** embedding library (perflab.c) and perflab.so (module.c).  Protected
** calls and interrupts are pl_call.h; the REPL is repl.h.
*/
#ifndef PL_HOST_H
#define PL_HOST_H

#include <lua.h>
#include <stddef.h>

/* A new Lua state with the standard libraries, every perflab module in
** package.preload, and the searcher for the embedded Lua library.
** Returns NULL only when memory is exhausted. */
lua_State *pl_host_newstate(void);
/* Puts the perflab modules into package.preload, the searcher for the
** embedded Lua library into package.searchers (second, after preload) and
** lends the parse hooks (pl_call.h) to the bindings of an existing state:
** what pl_host_newstate does after opening the standard libraries, and what
** perflab.so does in a stock lua5.4.  Raises on a memory error. */
void pl_host_install(lua_State *L);

/* An embedded file (lua/perflab/x.lua, recipes/x.lua, jupyter/...), or
** NULL; *len its size. */
const char *pl_host_embedded(const char *path, size_t *len);

#endif

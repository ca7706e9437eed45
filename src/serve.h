/*
** serve.h -- the Lua module 'perflab.httpd' (serve.c): the HTTP server of
** `perflab serve` and its path checks.  Host layer.
*/
#ifndef PL_SERVE_H
#define PL_SERVE_H
#include <lua.h>

int luaopen_perflab_httpd(lua_State *L);

#endif

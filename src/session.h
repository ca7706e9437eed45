/*
** session.h -- the Lua module 'perflab.session' (session.c): the REPL and
** the notebook cell protocol, host-layer functions a Lua session calls.
*/
#ifndef PL_SESSION_H
#define PL_SESSION_H
#include <lua.h>

int luaopen_perflab_session(lua_State *L);

#endif

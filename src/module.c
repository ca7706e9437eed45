/*
** module.c -- the Lua C module 'perflab' (perflab.so), so a stock lua5.4
** can `require "perflab"` and get the same API as perflab scripts: it puts
** the perflab modules into package.preload and the embedded Lua library's
** searcher into package.searchers (pl_host_install), then loads the Lua
** library's perflab module (lua/perflab/init.lua) and returns it.  Host
** layer (it was l_perflab.c, a host file under a binding's name); built
** into the perflab binary too, where nothing calls it.
*/
#include "host.h"

#include <lauxlib.h>

int luaopen_perflab(lua_State *L) {
  pl_host_install(L);
  /* require("perflab") finds the embedded lua/perflab/init.lua: the
  ** searcher just installed comes before the C searcher that found us.
  ** luaopen_perflab runs inside require's call, so an error propagates. */
  lua_getglobal(L, "require");
  lua_pushliteral(L, "perflab");
  lua_call(L, 1, 1); /* [perflab] */
  return 1;
}

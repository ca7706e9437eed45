/*
** l_perflab.c -- the Lua C module 'perflab' (perflab.so), so a stock lua5.4
** can `require "perflab"` and get the same API as perflab scripts: it puts
** the perflab modules into package.preload and the embedded Lua library's
** searcher into package.searchers, then loads the Lua library's perflab
** module (lua/perflab/init.lua) and returns it.  Built into the perflab
** binary too, where nothing calls it.
*/
#include "lbind.h"
#include "host.h"

int luaopen_perflab(lua_State *L) {
  pl_host_install(L);
  /* require("perflab") finds the embedded lua/perflab/init.lua: the
  ** searcher just installed comes before the C searcher that found us */
  lua_getglobal(L, "require");
  lua_pushliteral(L, "perflab");
  lua_call(L, 1, 1);
  return 1;
}

/*
** l_options.c -- Lua module 'perflab.options': the one checker of option
** tables for the whole public API.  An option table may hold only the keys
** its function accepts; any other key (a typo such as `tabels`, or `smem`
** for `smem_static`) is an error naming the key and the accepted ones, so
** a misspelt option can never pass silently.  The C bindings call
** pl_l_checkoptions (lbind.h); the Lua library calls options.check.
*/
#include "lbind.h"

#include <stdlib.h>
#include <string.h>

/* Pushes "unknown option 'K'; accepted: a, b, c" for the key at the top
** of the stack (left there).  [... key] -> [... key msg] */
static const char *push_unknown(lua_State *L, const char *const accepted[], int nacc) {
  luaL_Buffer b;
  const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  luaL_buffinit(L, &b); /* only luaL_add* until pushresult */
  if (k) {
    luaL_addstring(&b, "unknown option '");
    luaL_addstring(&b, k);
    luaL_addchar(&b, '\'');
  } else luaL_addstring(&b, "unexpected value without an option name");
  luaL_addstring(&b, "; accepted: ");
  for (int i = 0; i < nacc; i++) {
    if (i) luaL_addstring(&b, ", ");
    luaL_addstring(&b, accepted[i]);
  }
  if (nacc == 0) luaL_addstring(&b, "none");
  luaL_pushresult(&b); /* [... key msg] */
  return lua_tostring(L, -1);
}

static int accepted_has(const char *const accepted[], int nacc, const char *k) {
  for (int i = 0; i < nacc; i++)
    if (strcmp(accepted[i], k) == 0) return 1;
  return 0;
}

/* The first key of the table at idx not in accepted, pushed; 0 when none. */
static int find_unknown(lua_State *L, int idx, const char *const accepted[], int nacc) {
  lua_pushnil(L);                 /* [... nil] */
  while (lua_next(L, idx) != 0) { /* [... key value] */
    lua_pop(L, 1);                /* [... key] */
    if (lua_type(L, -1) != LUA_TSTRING || !accepted_has(accepted, nacc, lua_tostring(L, -1))) return 1; /* [... key] */
  }
  return 0; /* [...] */
}

void pl_l_checkoptions(lua_State *L, int arg, const char *const accepted[]) {
  if (!lua_istable(L, arg)) return;
  arg = lua_absindex(L, arg);
  int nacc = 0;
  while (accepted[nacc]) nacc++;
  luaL_checkstack(L, 4, "options");
  if (find_unknown(L, arg, accepted, nacc)) { luaL_argerror(L, arg, push_unknown(L, accepted, nacc)); }
}

int pl_l_checkfieldoption(lua_State *L, int arg, const char *key, const char *def, const char *const lst[]) {
  const char *v = def;
  if (lua_istable(L, arg)) {
    lua_getfield(L, arg, key); /* [... v] */
    if (!lua_isnil(L, -1)) v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1); /* [...]; v stays anchored in the table */
  }
  for (int i = 0; v && lst[i]; i++)
    if (strcmp(lst[i], v) == 0) return i;
  /* "option nan must be "omit" or "error"" */
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "option ");
  luaL_addstring(&b, key);
  luaL_addstring(&b, " must be ");
  for (int i = 0; lst[i]; i++) {
    if (i) luaL_addstring(&b, lst[i + 1] ? ", " : " or ");
    luaL_addchar(&b, '"');
    luaL_addstring(&b, lst[i]);
    luaL_addchar(&b, '"');
  }
  luaL_pushresult(&b); /* [... msg] */
  return luaL_argerror(L, arg, lua_tostring(L, -1));
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* check(opts, accepted [, where [, level]]) -> opts
** opts: nil or a table; accepted: an array of key names.  Raises
** "WHERE: unknown option 'K'; accepted: a, b, c" (accepted sorted) at
** `level` (default 3: the caller of the function that checks), else
** returns opts. */
static int options_check(lua_State *L) {
  lua_settop(L, 4);
  if (lua_isnil(L, 1)) return 1;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  const char *where = luaL_optstring(L, 3, NULL);
  int level = (int)luaL_optinteger(L, 4, 3);
  int nacc = (int)luaL_len(L, 2);
  luaL_argcheck(L, nacc >= 0 && nacc < 4096, 2, "too many option names");
  /* the names, anchored in `accepted`, as a sorted C array */
  const char **acc = (const char **)lua_newuserdatauv(L, (size_t)(nacc + 1) * sizeof *acc, 0); /* [.. box] */
  for (int i = 0; i < nacc; i++) {
    luaL_argcheck(L, lua_geti(L, 2, i + 1) == LUA_TSTRING, 2, "option names must be strings");
    acc[i] = lua_tostring(L, -1);
    lua_pop(L, 1); /* still anchored in accepted */
  }
  acc[nacc] = NULL;
  qsort(acc, (size_t)nacc, sizeof *acc, cmp_str);
  if (!find_unknown(L, 1, acc, nacc)) return lua_settop(L, 1), 1;
  const char *msg = push_unknown(L, acc, nacc); /* [.. box key msg] */
  luaL_where(L, level);                         /* [.. box key msg where] */
  if (where) lua_pushfstring(L, "%s%s: %s", lua_tostring(L, -1), where, msg);
  else lua_pushfstring(L, "%s%s", lua_tostring(L, -1), msg);
  return lua_error(L);
}

static const luaL_Reg funcs[] = { { "check", options_check }, { NULL, NULL } };

int luaopen_perflab_options(lua_State *L) {
  luaL_newlib(L, funcs); /* [module] */
  return 1;
}

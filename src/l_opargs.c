/*
** l_opargs.c -- Lua module 'perflab.opargs' over src/core/opargs.c: the
** operator arguments of a Kineto trace (record_shapes=True) as Lua values,
** one call per distinct argument text (a recipe groups the operators first,
** so this runs per group, never per row).  docs/ops.md.
*/
#include "lbind.h"
#include "opargs.h"

#include <string.h>

#define MAXITEMS 256
#define MAXINTS  4096

/* The element spans of the array text at arg (nil or missing text: 0
** items, ok).  Raises nothing: returns -1 with the message pushed. */
static int items_of(lua_State *L, int arg, const char **s, size_t *n, pl_argspan *it, size_t *k, const char *field) {
  *k = 0;
  *s = NULL;
  *n = 0;
  if (lua_isnoneornil(L, arg)) return 0;
  *s = luaL_checklstring(L, arg, n);
  if (*n == 0) return 0;
  size_t pos = 0;
  char err[96];
  if (pl_args_items(*s, *n, it, MAXITEMS, k, &pos, err, sizeof err) < 0) {
    lua_pushfstring(L, "%s:1:%d: %s", field, (int)pos + 1, err);
    return -1;
  }
  if (*k > MAXITEMS) *k = MAXITEMS;
  return 0;
}

/* [..] -> [.. list]: the integers of element it as a Lua array; a
** TensorList (nested lists) as an array of arrays. */
static void push_ints(lua_State *L, const char *s, pl_argspan it, int64_t *buf, int *depth) {
  size_t nv;
  if (pl_args_ints(s + it.off, it.len, buf, MAXINTS, &nv, depth) < 0 || *depth < 0) {
    lua_pushnil(L);
    *depth = -1;
    return;
  }
  if (nv > MAXINTS) nv = MAXINTS;
  if (*depth <= 1) {
    lua_createtable(L, (int)nv, 0);
    for (size_t i = 0; i < nv; i++) {
      lua_pushinteger(L, (lua_Integer)buf[i]);
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return;
  }
  /* nested: one array per inner list (depth 2 only; deeper flattened per top element) */
  const char *p = s + it.off, *e = p + it.len;
  lua_newtable(L);
  int k = 0;
  const char *q = p + 1; /* past the outer '[' */
  while (q < e) {
    while (q < e && *q != '[' && *q != ']') q++;
    if (q >= e || *q == ']') break;
    const char *r = q;
    int d = 0;
    for (; r < e; r++) {
      if (*r == '[') d++;
      else if (*r == ']' && --d == 0) {
        r++;
        break;
      }
    }
    pl_argspan sub = { (size_t)(q - s), (size_t)(r - q) };
    int sd;
    push_ints(L, s, sub, buf, &sd);
    lua_rawseti(L, -2, ++k);
    q = r;
  }
}

/* opargs.parse(dims, types [, strides [, concrete]]) -> array of inputs, or
** nil, message.  Each input: {dims = {...} | nil, list = {{...}, ...} for a
** TensorList, type = text as written, dtype = canonical name (or the text
** where unknown), bytes = per element (0 for a non-tensor), strides =
** {...} | nil, value = concrete text | nil}.  Missing fields: those keys
** absent.  The text is the compact JSON the Kineto reader keeps. */
static int l_parse(lua_State *L) {
  lua_settop(L, 4);
  pl_argspan it[4][MAXITEMS];
  const char *s[4];
  size_t n[4], k[4];
  static const char *const fields[] = { "Input Dims", "Input type", "Input Strides", "Concrete Inputs" };
  for (int f = 0; f < 4; f++)
    if (items_of(L, f + 1, &s[f], &n[f], it[f], &k[f], fields[f]) < 0) {
      lua_pushnil(L);
      lua_insert(L, -2);
      return 2;
    }
  size_t m = k[0];
  for (int f = 1; f < 4; f++)
    if (k[f] > m) m = k[f];
  int64_t *buf = lua_newuserdatauv(L, MAXINTS * sizeof *buf, 0); /* freed by the GC, also on an error */
  char str[256];
  lua_createtable(L, (int)m, 0);
  for (size_t i = 0; i < m; i++) {
    lua_createtable(L, 0, 7);
    int depth;
    if (i < k[0]) {
      push_ints(L, s[0], it[0][i], buf, &depth);
      if (depth >= 2) lua_setfield(L, -2, "list");
      else if (depth >= 0) lua_setfield(L, -2, "dims");
      else lua_pop(L, 1);
    }
    if (i < k[1]) {
      size_t len = pl_args_str(s[1] + it[1][i].off, it[1][i].len, str, sizeof str);
      if (len != (size_t)-1) {
        if (len >= sizeof str) len = sizeof str - 1;
        int bytes;
        const char *c = pl_dtype_canon(str, len, &bytes);
        lua_pushlstring(L, str, len);
        lua_setfield(L, -2, "type");
        if (c) lua_pushstring(L, c);
        else lua_pushlstring(L, str, len);
        lua_setfield(L, -2, "dtype");
        lua_pushinteger(L, bytes);
        lua_setfield(L, -2, "bytes");
      }
    }
    if (i < k[2]) {
      push_ints(L, s[2], it[2][i], buf, &depth);
      if (depth >= 0) lua_setfield(L, -2, "strides");
      else lua_pop(L, 1);
    }
    if (i < k[3]) {
      size_t len = pl_args_str(s[3] + it[3][i].off, it[3][i].len, str, sizeof str);
      if (len != (size_t)-1 && len > 0) {
        if (len >= sizeof str) len = sizeof str - 1;
        lua_pushlstring(L, str, len);
        lua_setfield(L, -2, "value");
      }
    }
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* opargs.dtype(text) -> canonical name, bytes per element (nil, 0 for a
** spelling not known). */
static int l_dtype(lua_State *L) {
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  int bytes;
  const char *c = pl_dtype_canon(s, n, &bytes);
  if (c) lua_pushstring(L, c);
  else lua_pushnil(L);
  lua_pushinteger(L, bytes);
  return 2;
}

/* opargs.precision(types_text) -> the canonical dtype of the first
** floating-point tensor input (else of the first tensor input), or nil
** where the text names none. */
static int l_precision(lua_State *L) {
  size_t n;
  const char *s = luaL_optlstring(L, 1, "", &n);
  pl_argspan it[MAXITEMS];
  size_t k = 0;
  if (n == 0 || pl_args_items(s, n, it, MAXITEMS, &k, NULL, NULL, 0) < 0) {
    lua_pushnil(L);
    return 1;
  }
  if (k > MAXITEMS) k = MAXITEMS;
  const char *first = NULL;
  char str[128];
  for (size_t i = 0; i < k; i++) {
    size_t len = pl_args_str(s + it[i].off, it[i].len, str, sizeof str);
    if (len == (size_t)-1 || len >= sizeof str) continue;
    int bytes;
    const char *c = pl_dtype_canon(str, len, &bytes);
    if (!c || bytes == 0) continue;
    if (pl_dtype_is_float(c)) {
      lua_pushstring(L, c);
      return 1;
    }
    if (!first) first = c;
  }
  if (first) lua_pushstring(L, first);
  else lua_pushnil(L);
  return 1;
}

static const luaL_Reg funcs[] = {
  { "parse", l_parse }, { "dtype", l_dtype }, { "precision", l_precision }, { NULL, NULL }
};

int luaopen_perflab_opargs(lua_State *L) {
  luaL_newlib(L, funcs);
  return 1;
}

/*
** perflab.c -- the embedding API of src/perflab.h.  A workbench is a host
** Lua state (host.c) with the perflab API and the REPL helpers loaded; the
** work is done by the Lua module perflab.embed, called protected with the
** host's message handler.  Nothing here prints, exits or touches signals
** (perflab_repl aside, which lends the REPL its streams).
*/
#include "perflab.h"
#include "host.h"
#include "pl_call.h"
#include "repl.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#ifndef PERFLAB_VERSION
#define PERFLAB_VERSION "0"
#endif

struct perflab {
  lua_State *L;
  char *err; /* last error message (malloc), NULL when none */
  int nomem; /* the last error was an allocation failure */
};

const char *perflab_version(void) { return PERFLAB_VERSION; }

static void set_err(perflab *pl, const char *msg) {
  free(pl->err);
  pl->err = NULL;
  pl->nomem = 0;
  if (msg) {
    pl->err = strdup(msg);
    if (!pl->err) pl->nomem = 1;
  }
}

const char *perflab_errmsg(const perflab *pl) {
  if (pl == NULL) return "no workbench (NULL)";
  if (pl->err) return pl->err;
  return pl->nomem ? "not enough memory" : "";
}

void perflab_free(void *p) { free(p); }

/* Turns a failed lua_pcall into a return code and the message. */
static int lua_failure(perflab *pl, int status) {
  lua_State *L = pl->L;
  int code = PERFLAB_ELUA;
  const char *msg = NULL;
  if (status == LUA_ERRMEM) code = PERFLAB_EMEM;
  if (pl_is_fail(L, -1)) { /* perflab.fail{}: the user's input */
    lua_getfield(L, -1, "message");
    msg = lua_tostring(L, -1);
    lua_remove(L, -2);
    if (code != PERFLAB_EMEM) code = PERFLAB_EINPUT;
  } else {
    msg = lua_tostring(L, -1);
  }
  set_err(pl, msg ? msg : "(error object is not a string)");
  if (code == PERFLAB_EMEM && !pl->err) pl->nomem = 1;
  lua_pop(L, 1);
  return code;
}

/* Calls perflab.embed[fn] with the nargs values on the stack; nres results. */
static int call_embed(perflab *pl, const char *fn, int nargs, int nres) {
  lua_State *L = pl->L;
  int base = lua_gettop(L) - nargs; /* the function goes here */
  lua_pushcfunction(L, pl_msghandler);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "perflab.embed");
  int st = lua_pcall(L, 1, 1, base + nargs + 1);
  if (st != LUA_OK) {
    int code = lua_failure(pl, st);
    lua_settop(L, base);
    return code;
  }
  lua_getfield(L, -1, fn);
  lua_remove(L, -2); /* the module */
  /* stack: args..., handler, f  ->  handler, f, args... */
  lua_rotate(L, base + 1, 2);
  st = lua_pcall(L, nargs, nres, base + 1);
  lua_remove(L, base + 1); /* the handler */
  if (st != LUA_OK) {
    int code = lua_failure(pl, st);
    lua_settop(L, base);
    return code;
  }
  set_err(pl, NULL);
  return PERFLAB_OK;
}

static int api_setup(lua_State *L) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "perflab");
  lua_call(L, 1, 1);
  lua_setglobal(L, "perflab");
  return 0;
}

perflab *perflab_open(void) {
  perflab *pl = calloc(1, sizeof *pl);
  if (!pl) return NULL;
  pl->L = pl_host_newstate();
  if (!pl->L) {
    free(pl);
    return NULL;
  }
  lua_pushcfunction(pl->L, api_setup);
  if (lua_pcall(pl->L, 0, 0, 0) != LUA_OK || call_embed(pl, "setup", 0, 0) != PERFLAB_OK) {
    perflab_close(pl);
    return NULL;
  }
  return pl;
}

void perflab_close(perflab *pl) {
  if (!pl) return;
  if (pl->L) lua_close(pl->L);
  free(pl->err);
  free(pl);
}

lua_State *perflab_lua(perflab *pl) { return pl ? pl->L : NULL; }

/* Pushes a NULL-terminated string array as a Lua list. */
static void push_list(lua_State *L, const char *const *v) {
  lua_newtable(L);
  for (int i = 0; v && v[i]; i++) {
    lua_pushstring(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* Moves the string result on the stack into *out (malloc). */
static int take_string(perflab *pl, char **out) {
  size_t len;
  const char *s = lua_tolstring(pl->L, -1, &len);
  char *copy = malloc(len + 1);
  if (!copy) {
    lua_pop(pl->L, 1);
    set_err(pl, "not enough memory");
    return PERFLAB_EMEM;
  }
  if (s) memcpy(copy, s, len);
  copy[s ? len : 0] = '\0';
  lua_pop(pl->L, 1);
  *out = copy;
  return PERFLAB_OK;
}

int perflab_load(perflab *pl, const char *path, const char *name) {
  if (!pl) return PERFLAB_EARG;
  if (!path) {
    set_err(pl, "perflab_load: path is NULL");
    return PERFLAB_EARG;
  }
  lua_pushstring(pl->L, path);
  if (name) lua_pushstring(pl->L, name);
  else lua_pushnil(pl->L);
  int st = call_embed(pl, "load", 2, 0);
  return st;
}

int perflab_run(perflab *pl, const char *recipe, const char *const *inputs, const char *const *options,
                const char *format, char **out) {
  if (out) *out = NULL;
  if (!pl) return PERFLAB_EARG;
  if (!recipe || !out) {
    set_err(pl, "perflab_run: recipe and out must not be NULL");
    return PERFLAB_EARG;
  }
  lua_State *L = pl->L;
  lua_pushstring(L, recipe);
  push_list(L, inputs);
  push_list(L, options);
  lua_pushstring(L, format ? format : "text");
  int st = call_embed(pl, "run", 4, 1);
  if (st != PERFLAB_OK) return st;
  return take_string(pl, out);
}

int perflab_eval(perflab *pl, const char *code, char **out) {
  if (out) *out = NULL;
  if (!pl) return PERFLAB_EARG;
  if (!code) {
    set_err(pl, "perflab_eval: code is NULL");
    return PERFLAB_EARG;
  }
  lua_pushstring(pl->L, code);
  int st = call_embed(pl, "eval", 1, 1);
  if (st != PERFLAB_OK) return st;
  if (!out) {
    lua_pop(pl->L, 1);
    return PERFLAB_OK;
  }
  return take_string(pl, out);
}

int perflab_repl(perflab *pl, FILE *in, FILE *out, FILE *err, int interactive) {
  if (!pl) return PERFLAB_EARG;
  if (!in || !out || !err) {
    set_err(pl, "perflab_repl: a stream is NULL");
    return PERFLAB_EARG;
  }
  int failed = pl_repl_io(pl->L, in, out, err, interactive);
  if (failed) {
    set_err(pl, "a chunk failed (its error went to the error stream)");
    return PERFLAB_ELUA;
  }
  set_err(pl, NULL);
  return PERFLAB_OK;
}

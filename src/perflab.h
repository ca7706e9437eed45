/*
** perflab.h -- the perflab embedding API (libperflab, static and shared).
**
** A C program links libperflab to read profiler outputs and run perflab
** recipes without the command line:
**
**     perflab *pl = perflab_open();
**     char *text = NULL;
**     if (perflab_load(pl, "kernels.txt", "p") != PERFLAB_OK ||
**         perflab_run(pl, "top-kernels", (const char *[]){"p", NULL},
**                     (const char *[]){"top=5", NULL}, "markdown", &text) != PERFLAB_OK)
**       fprintf(stderr, "perflab: %s\n", perflab_errmsg(pl));
**     else fputs(text, stdout);
**     perflab_free(text);
**     perflab_close(pl);
**
** Build: cc app.c $(pkg-config --cflags --libs perflab)
**        (the program finds libperflab.so.0 through the rpath perflab.pc
**        sets: no LD_LIBRARY_PATH needed)
**        static: cc app.c $(pkg-config --cflags --static --libs perflab-static)
**        (libperflab.a; Lua, zlib, sqlite ... as the system has them)
**
** A workbench is one Lua 5.4 state with the perflab API loaded as the
** global `perflab` and the REPL helpers help/load/run/recipes; profiles
** loaded with perflab_load become globals of that state, so perflab_eval and
** perflab_repl see them.  The state is yours to extend (perflab_lua).
**
** Errors: every function that can fail returns a PERFLAB_* code and leaves
** a message for perflab_errmsg.  The library never calls exit() and never
** prints, with these exceptions: perflab_repl writes to the streams you give
** it; Lua code you run (print, a recipe's io.write) writes where Lua writes
** (the process stdout); and when memory runs out inside the C core
** (pl_xmalloc in src/core/pl_util.c) the process aborts (the core calls the
** out-of-memory handler a host may set with pl_set_oom_handler, else
** abort(); the perflab command line's prints the --max-memory advice and
** exits 2), as does Lua's panic handler on an error outside any protected
** call (never reached through this API).  Allocation failures that Lua sees
** come back as PERFLAB_EMEM.
**
** Signals: only perflab_repl touches SIGINT (Ctrl-C interrupts the running
** chunk; at the prompt it drops the line); it restores the previous
** disposition before returning.  A workbench is not thread-safe: use one
** per thread.
*/
#ifndef PERFLAB_H
#define PERFLAB_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lua_State lua_State; /* <lua.h>: include it to use the state */
typedef struct perflab perflab;     /* a workbench */

/* Return codes. */
enum {
  PERFLAB_OK = 0,
  PERFLAB_EINPUT = 2, /* bad input or usage: unreadable or malformed file, unknown
                          recipe, option or format (the command line exits 2) */
  PERFLAB_ELUA = 3,   /* an error raised by Lua code (a recipe, your code): the
                          message carries the traceback */
  PERFLAB_EMEM = 4,   /* out of memory */
  PERFLAB_EARG = 5    /* a bad argument to this API (NULL workbench, NULL path) */
};

/* The library version ("0.1.0"). */
const char *perflab_version(void);

/* A new workbench, or NULL when memory is exhausted. */
perflab *perflab_open(void);
/* Closes the workbench and frees everything it holds (NULL is fine). */
void perflab_close(perflab *pl);

/* The message of the last failed call on this workbench ("" when none).
** Valid until the next call on the workbench. */
const char *perflab_errmsg(const perflab *pl);

/* Loads a profile (format detected from the content) into the global
** `name` of the workbench's state; name NULL means "p1", "p2", ... in load
** order.  Every profile is also appended to the global list `profiles`. */
int perflab_load(perflab *pl, const char *path, const char *name);

/* Runs a recipe (a name on the search path, or a path to a .lua file) and
** renders its report.
**   inputs   NULL-terminated: names of loaded profiles, or file paths
**   options  NULL-terminated "KEY=VALUE" strings (NULL for none), coerced
**            to the types the recipe declares, as `--set` does
**   format   "text", "markdown", "json" or "csv" (NULL: "text")
**   out      receives the report as a NUL-terminated string from malloc
**            (free it with perflab_free or free); NULL on failure.
** Findings do not make it fail: read them from the JSON if you need them. */
int perflab_run(perflab *pl, const char *recipe, const char *const *inputs, const char *const *options,
                const char *format, char **out);

/* Evaluates Lua code in the workbench: as an expression first, else as
** statements (the last line returned when it is an expression, as in the
** cell protocol).  out (may be NULL) receives the values rendered as the REPL
** prints them (tables as aligned text, reports as text, numbers with full
** precision), one per line, as a string from malloc ("" when none). */
int perflab_eval(perflab *pl, const char *code, char **out);

/* Runs the REPL on the given streams until end of input.  interactive:
** banner and prompts; line editing, history and Tab completion when `in`
** and `out` are terminals.  Values and print() go to out, errors to err.
** Returns PERFLAB_OK, or PERFLAB_ELUA when a chunk failed. */
int perflab_repl(perflab *pl, FILE *in, FILE *out, FILE *err, int interactive);

/* The workbench's Lua state, to add your own bindings (lua_register,
** package.preload, globals).  Owned by the workbench: do not close it; leave
** its stack as you found it. */
lua_State *perflab_lua(perflab *pl);

/* Frees a string this API returned. */
void perflab_free(void *p);

#ifdef __cplusplus
}
#endif

#endif

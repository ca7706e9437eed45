/*
** embed.c -- a C program that links libperflab (src/perflab.h): loads a
** profile, runs the top-kernels recipe to Markdown, adds a binding of its own
** to the workbench's Lua state and evaluates code that uses it, shows how an
** error comes back, and with --repl runs the REPL on stdin/stdout.
**
** Build against an installed perflab:
**   cc embed.c -o embed $(pkg-config --cflags --libs perflab)
** usage: embed FILE [--repl]
*/
#include <perflab.h>
#include <lua.h>
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

/* The lab's own binding: the launch time it considers slow, in ns. */
static int lab_slow_ns(lua_State *L) {
  lua_pushinteger(L, 50000);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [--repl]\n", argv[0]);
    return 2;
  }
  perflab *pl = perflab_open();
  if (pl == NULL) {
    fprintf(stderr, "embed: cannot create a workbench (out of memory)\n");
    return 2;
  }
  lua_register(perflab_lua(pl), "lab_slow_ns", lab_slow_ns);

  if (perflab_load(pl, argv[1], "prof") != PERFLAB_OK) {
    fprintf(stderr, "embed: %s\n", perflab_errmsg(pl));
    perflab_close(pl);
    return 2;
  }

  /* a recipe with options, rendered as Markdown */
  const char *inputs[] = { "prof", NULL };
  const char *options[] = { "top=3", NULL };
  char *report = NULL;
  if (perflab_run(pl, "top-kernels", inputs, options, "markdown", &report) != PERFLAB_OK) {
    fprintf(stderr, "embed: %s\n", perflab_errmsg(pl));
    perflab_close(pl);
    return 2;
  }
  fputs(report, stdout);
  perflab_free(report);

  /* Lua code in the same state, using the profile and our binding */
  char *value = NULL;
  int rc = perflab_eval(pl,
                        "local k = prof:table('kernels')\n"
                        "return k:where(function(r) return r.duration_ns > lab_slow_ns() end):nrows()",
                        &value);
  if (rc != PERFLAB_OK) {
    fprintf(stderr, "embed: %s\n", perflab_errmsg(pl));
    perflab_close(pl);
    return 2;
  }
  printf("\nlaunches slower than %d ns: %s", 50000, value);
  perflab_free(value);

  /* errors come back as codes and messages; nothing is printed for us */
  rc = perflab_run(pl, "no-such-recipe", inputs, NULL, NULL, &report);
  printf("no-such-recipe: code %d (PERFLAB_EINPUT is %d)\n", rc, PERFLAB_EINPUT);

  if (argc > 2 && strcmp(argv[2], "--repl") == 0) {
    rc = perflab_repl(pl, stdin, stdout, stderr, 0);
    printf("repl: code %d\n", rc);
  }
  perflab_close(pl);
  return 0;
}

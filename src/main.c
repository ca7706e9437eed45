/*
** main.c -- the perflab command line.  Subcommands (run, parse, recipes,
** formats, gpus, demo, repl, help) are handled by the Lua library
** (lua/perflab/cli.lua): argument parsing and reports are easier to read and
** extend there.  This file does what must be C: the process, the locale,
** lua5.4-style script options (-e, -l, -i, -, SCRIPT ARGS) and exit codes.
**
** Exit status: 0 success; 1 a finding at or above --fail-on; 2 bad usage,
** unknown recipe or format, unreadable or malformed input, or a failed script.
*/
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "pl_call.h"
#include "pl_limits.h"
#include "pl_util.h"
#include "repl.h"

#ifndef PERFLAB_VERSION
#define PERFLAB_VERSION "0"
#endif

static const char *const subcommands[] = { "run",  "report", "parse",   "recipes", "formats", "gpus", "demo",
                                           "repl", "help",   "jupyter", "export",  "serve",   NULL };

static int is_subcommand(const char *s) {
  for (int i = 0; subcommands[i]; i++)
    if (strcmp(s, subcommands[i]) == 0) return 1;
  return 0;
}

/* The C core's out-of-memory handler (pl_util.h): the command line's
** words for it, and its exit status. */
static void core_oom(size_t n) {
  if (pl_oom_file) fprintf(stderr, "perflab: %s: out of memory", pl_oom_file);
  else fprintf(stderr, "perflab: out of memory");
  fprintf(stderr,
          " (allocating %zu bytes): the input needs more memory than "
          "--max-memory allows; raise it, or load only the tables you need (--table)\n",
          n);
  exit(2);
}

/* Exit code from an error object: perflab.fail{} tables carry one. */
static int error_exit(lua_State *L) {
  int code = 2;
  if (pl_is_fail(L, -1)) {
    lua_getfield(L, -1, "exit");
    if (lua_isinteger(L, -1)) code = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  return code;
}

/* Reports a failed call of a subcommand; returns its exit code.  Stopped by
** Ctrl-C or --timeout (not a bug): the message alone, not the traceback of
** where in perflab's own code that happened. */
static int cli_failed(lua_State *L, int st) {
  if (!pl_is_fail(L, -1) && pl_call_stopped() && lua_type(L, -1) == LUA_TSTRING) {
    const char *m = lua_tostring(L, -1);
    fprintf(stderr, "perflab: %.*s\n", (int)strcspn(m, "\n"), m);
    lua_pop(L, 1);
    return 2;
  }
  int code = error_exit(L);
  pl_report(L, st);
  return code;
}

/* Calls require("perflab.cli").main(args...) and returns its exit code. */
static int run_cli(lua_State *L, int argc, char **argv, int first) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "perflab.cli");
  int st = pl_docall(L, 1, 1);
  if (st != LUA_OK) return cli_failed(L, st);
  lua_getfield(L, -1, "main");
  lua_remove(L, -2);
  lua_createtable(L, argc - first, 0);
  for (int i = first; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - first + 1);
  }
  st = pl_docall(L, 1, 1);
  if (st != LUA_OK) return cli_failed(L, st);
  int code = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
  lua_pop(L, 1);
  return code;
}

static void print_usage(void) {
  printf("usage: perflab COMMAND [ARGS]      (perflab help COMMAND for more)\n"
         "       perflab [OPTIONS] [SCRIPT.lua [ARGS]]\n"
         "\n"
         "commands:\n"
         "  report FILE...       every recipe that applies, the summary first (= run all)\n"
         "  run RECIPE FILE...   run a recipe on profiles and print its report\n"
         "  parse FILE           show what was read: tables, rows, columns\n"
         "  recipes | formats | gpus   list what is available\n"
         "  repl [FILE...]       interactive session, files preloaded (--jsonl: cell protocol)\n"
         "  jupyter install      install the \"perflab (Lua)\" Jupyter kernel\n"
         "  demo                 bundled recipes on bundled example profiles\n"
         "  serve DIR            a local web workbench over the profiles under DIR\n"
         "\n"
         "options (as lua5.4, with the perflab API preloaded as `perflab`):\n"
         "  -e CODE    run CODE          -l MOD    require MOD into global MOD\n"
         "  -i         REPL after the script          -     script from stdin\n"
         "  -v, --version   print the version         -h, --help   this text\n"
         "\n"
         "limits (any command; before SCRIPT in script mode):\n"
         "  --max-memory SIZE  cap memory, e.g. 2G (default 80%% of physical memory)\n"
         "  --timeout SECONDS  stop a run that takes longer (exit 2)\n"
         "  --sandbox          no os.execute, io.popen or C modules; writes only under --output\n"
         "\n"
         "exit status: 0 success; 1 a finding at or above --fail-on; 2 bad usage,\n"
         "unknown recipe or format, unreadable or malformed input, or a failed script.\n");
}

/* Sets the global `perflab` to require("perflab") (the API, preloaded). */
static int preload_api(lua_State *L) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "perflab");
  int st = pl_docall(L, 1, 1);
  if (st != LUA_OK) return pl_report(L, st);
  lua_setglobal(L, "perflab");
  return LUA_OK;
}

/* Runs a loaded chunk; returns 0, or the exit code of the error (2 unless a
** perflab.fail{} error carries another). */
static int dochunk(lua_State *L, int status) {
  if (status == LUA_OK) status = pl_docall(L, 0, 0);
  if (status == LUA_OK) return 0;
  int code = status == LUA_ERRSYNTAX ? 2 : error_exit(L);
  pl_report(L, status);
  return code;
}

/* Runs a script with arguments argv[i+1..] in `arg` (lua.c's convention). */
static int run_script(lua_State *L, int argc, char **argv, int i) {
  lua_createtable(L, argc - i, i + 1);
  for (int k = 0; k < argc; k++) {
    lua_pushstring(L, argv[k]);
    lua_rawseti(L, -2, k - i);
  }
  lua_setglobal(L, "arg");
  const char *fname = argv[i];
  if (strcmp(fname, "-") == 0 && (i == 0 || strcmp(argv[i - 1], "--") != 0)) fname = NULL;
  int st = luaL_loadfile(L, fname);
  if (st != LUA_OK) {
    pl_report(L, st);
    return 2;
  } /* unreadable or bad syntax */
  int nargs = argc - i - 1;
  luaL_checkstack(L, nargs + 3, "too many arguments to script");
  for (int k = i + 1; k < argc; k++) lua_pushstring(L, argv[k]);
  st = pl_docall(L, nargs, 1);
  if (st != LUA_OK) {
    int code = error_exit(L);
    pl_report(L, st);
    return code;
  }
  /* a script may return an exit code (os.exit works too) */
  int code = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
  lua_pop(L, 1);
  return code;
}

/* The limit options may come anywhere in a subcommand's arguments, and
** before the script in script mode.  They are removed from argv here.
**   --max-memory SIZE   cap memory (default: 80 % of physical memory)
**   --timeout SECONDS   wall-clock budget for the whole run
**   --sandbox           no os.execute/io.popen/C modules; writes only under --output */
typedef struct limits_opts {
  size_t memory;
  double timeout;
  int sandbox;
} limits_opts;

static int take_limits(int *argc, char **argv, limits_opts *lo) {
  int sub = *argc > 1 && is_subcommand(argv[1]);
  int k = 1;
  for (int i = 1; i < *argc; i++) {
    const char *a = argv[i];
    if (!sub && (a[0] != '-' || strcmp(a, "--") == 0 || strcmp(a, "-") == 0)) {
      while (i < *argc) argv[k++] = argv[i++]; /* script and its args: untouched */
      break;
    }
    if (sub && strcmp(a, "--") == 0) {
      while (i < *argc) argv[k++] = argv[i++];
      break;
    }
    const char *val = NULL;
    int which = 0;
    if (strcmp(a, "--sandbox") == 0) {
      lo->sandbox = 1;
      continue;
    }
    if (strncmp(a, "--max-memory", 12) == 0 && (a[12] == '\0' || a[12] == '=')) which = 1;
    else if (strncmp(a, "--timeout", 9) == 0 && (a[9] == '\0' || a[9] == '=')) which = 2;
    /* perflab serve applies --timeout to each request, not to the process */
    if (which == 2 && sub && strcmp(argv[1], "serve") == 0) which = 0;
    if (!which) {
      argv[k++] = argv[i];
      if (!sub && (strcmp(a, "-e") == 0 || strcmp(a, "-l") == 0) && i + 1 < *argc) argv[k++] = argv[++i];
      continue;
    }
    const char *eq = strchr(a, '=');
    if (eq) val = eq + 1;
    else if (i + 1 < *argc) val = argv[++i];
    if (val == NULL) {
      fprintf(stderr, "perflab: option '%s' needs a value\n", a);
      return -1;
    }
    if (which == 1) {
      if (pl_parse_size(val, &lo->memory) != 0 || lo->memory == 0) {
        fprintf(stderr, "perflab: --max-memory expects a size like 512M or 4G, got '%s'\n", val);
        return -1;
      }
    } else {
      char *end;
      lo->timeout = strtod(val, &end);
      if (end == val || *end != '\0' || !(lo->timeout > 0)) {
        fprintf(stderr, "perflab: --timeout expects seconds (a positive number), got '%s'\n", val);
        return -1;
      }
    }
  }
  argv[k] = NULL;
  *argc = k;
  return 0;
}

static int apply_limits(lua_State *L, const limits_opts *lo) {
  pl_limit_memory(lo->memory ? lo->memory : pl_default_memory_limit());
  if (lo->timeout > 0) pl_limit_time(L, lo->timeout);
  if (lo->sandbox) {
    lua_getglobal(L, "require");
    lua_pushliteral(L, "perflab.sandbox");
    int st = pl_docall(L, 1, 1);
    if (st == LUA_OK) {
      lua_getfield(L, -1, "enable");
      lua_remove(L, -2);
      st = pl_docall(L, 0, 0);
    }
    if (st != LUA_OK) return pl_report(L, st);
  }
  return LUA_OK;
}

/* The command line's work; returns the exit code.  Runs inside pmain's
** protected call, so a failure outside perflab's own protected calls (the
** memory cap reached while building an argument table) is an error to
** report, not a panic. */
static int run_main(lua_State *L, int argc, char **argv, const limits_opts *lo) {
  if (apply_limits(L, lo) != LUA_OK) return 2;
  int code = 0;
  if (argc > 1 && is_subcommand(argv[1])) return run_cli(L, argc, argv, 1);
  if (preload_api(L) != LUA_OK) return 2;

  int interactive = 0, ran = 0, i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || strcmp(a, "-") == 0) break;
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      print_usage();
      return 0;
    }
    if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0) {
      printf("perflab %s (%s)\n", PERFLAB_VERSION, LUA_RELEASE);
      ran = 1;
      continue;
    }
    if (strcmp(a, "-i") == 0) {
      interactive = 1;
      continue;
    }
    if (strcmp(a, "-e") == 0 || strcmp(a, "-l") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "perflab: '%s' needs an argument\n", a);
        return 2;
      }
      const char *v = argv[++i];
      int st;
      if (a[1] == 'e') st = dochunk(L, luaL_loadbuffer(L, v, strlen(v), "=(command line)"));
      else {
        lua_getglobal(L, "require");
        lua_pushstring(L, v);
        st = pl_docall(L, 1, 1);
        if (st == LUA_OK) {
          const char *g = strrchr(v, '.');
          lua_setglobal(L, g ? g + 1 : v);
        } else {
          int c = error_exit(L);
          pl_report(L, st);
          st = c;
        }
      }
      if (st != 0) return st;
      ran = 1;
      continue;
    }
    fprintf(stderr, "perflab: unknown option '%s' (see perflab --help)\n", a);
    return 2;
  }
  if (i < argc) {
    code = run_script(L, argc, argv, i);
    ran = 1;
  }
  if (interactive || (!ran && i >= argc)) {
    int tty = isatty(0);
    if (interactive || tty) {
      lua_getglobal(L, "require");
      lua_pushliteral(L, "perflab.repl");
      int st = pl_docall(L, 1, 1);
      if (st == LUA_OK) {
        lua_getfield(L, -1, "setup");
        lua_remove(L, -2);
        lua_newtable(L);
        st = pl_docall(L, 1, 0);
      }
      if (st != LUA_OK) {
        pl_report(L, st);
        return 2;
      }
      code = pl_repl(L, tty) ? 2 : code;
    } else {
      /* no arguments and stdin is not a terminal: run stdin as a script */
      char *args[] = { argv[0], (char *)"-" };
      code = run_script(L, 2, args, 1);
    }
  }
  return code;
}

/* Standard output is checked at exit, as coreutils' close_stdout does: a
** write, flush or close that failed (a full disk, /dev/full, an I/O error)
** is an error, exit 2, whatever wrote there (parse, run, export, the cell
** protocol, a script's io.write or print) and however the process ends
** (return from main or os.exit).  A closed pipe (| head) stays quiet: the
** default SIGPIPE ends the process first, and EPIPE, where SIGPIPE is
** ignored, is not reported either.
** stdio forgets why a write failed (print flushes at once; the error shows
** only as ferror), so when stdout is not a terminal its stream writes
** through out_write, which keeps the first errno. */
static int stdout_errno;

static ssize_t out_write(void *cookie, const char *buf, size_t n) {
  (void)cookie;
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(1, buf + done, n - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (!stdout_errno) stdout_errno = errno;
      return (ssize_t)done; /* short: stdio marks the stream failed */
    }
    done += (size_t)w;
  }
  return (ssize_t)n;
}

static void checked_stdout(void) {
  if (isatty(1)) return; /* the REPL's line editing wants the real one */
  cookie_io_functions_t io = { NULL, out_write, NULL, NULL };
  FILE *f = fopencookie(NULL, "w", io);
  if (f == NULL) return;
  fflush(stdout);
  stdout = f;
}

static void close_stdout(void) {
  int prev = ferror(stdout);
  errno = 0;
  int bad = fclose(stdout) != 0;
  int en = stdout_errno ? stdout_errno : bad ? errno : 0;
  if (!prev && !bad) return;
  if (en == EPIPE) _exit(2);
  if (en) fprintf(stderr, "perflab: error writing standard output: %s\n", strerror(en));
  else fprintf(stderr, "perflab: error writing standard output\n");
  fflush(stderr);
  _exit(2);
}

typedef struct main_args {
  int argc;
  char **argv;
  const limits_opts *lo;
  int code;
} main_args;

static int pmain(lua_State *L) {
  main_args *m = lua_touserdata(L, 1);
  m->code = run_main(L, m->argc, m->argv, m->lo);
  return 0;
}

int main(int argc, char **argv) {
  /* Character classes follow the user's locale; numbers never do:
  ** LC_NUMERIC stays "C" so "0.5" is read and written the same everywhere. */
  setlocale(LC_CTYPE, "");
  setlocale(LC_NUMERIC, "C");
  checked_stdout();
  atexit(close_stdout);
  limits_opts lo = { 0, 0, 0 };
  if (take_limits(&argc, argv, &lo) != 0) return 2;
  pl_set_oom_handler(core_oom);
  /* big pages after the first load (pl_util.c says why); the variable
  ** turns it off, to compare or where the VM's THP misbehaves */
  const char *nohp = getenv("PERFLAB_NO_HUGEPAGES");
  pl_call_bigpages_after_load(!(nohp && *nohp && strcmp(nohp, "0") != 0));
  lua_State *L = pl_host_newstate();
  if (L == NULL) {
    fprintf(stderr, "perflab: cannot create Lua state: not enough memory\n");
    return 2;
  }
  main_args m = { argc, argv, &lo, 2 };
  lua_pushcfunction(L, pmain);
  lua_pushlightuserdata(L, &m);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "perflab: %s\n", msg ? msg : "(error object is not a string)");
    m.code = 2;
  }
  lua_close(L);
  return m.code;
}

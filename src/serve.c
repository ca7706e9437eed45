/*
** serve.c -- Lua module 'perflab.httpd': the HTTP side of `perflab serve`
** (lua/perflab/serve.lua renders every page).  GNU libmicrohttpd parses
** HTTP; this file keeps the doors shut before a request reaches Lua:
**   - GET and HEAD only, no request body, at most MAX_HEADERS headers,
**     a URI of at most MAX_URI bytes, 32 KiB of headers per connection
**     (libmicrohttpd answers 431 past it), idle connections closed after
**     30 s, at most 128 connections;
**   - the raw URI (before percent-decoding) has no encoded NUL, and its
**     path no encoded slash or backslash; the decoded path has no "." or ".." segment, no empty
**     segment, no control byte, no backslash;
**   - every file the pages read is named relative to DIR and goes through
**     check(): the same rules, then realpath() must stay under DIR's own
**     realpath (a symlink that leaves DIR is refused);
**   - without a token (loopback), the Host header must name the loopback
**     address (no DNS rebinding); with one, each request carries it
**     (?token=, the cookie set from it, or "Authorization: token T").
** A small pool of Lua states serves the requests side by side: worker 0
** is a coroutine of the caller's state, the others states of their own
** (pl_host_newstate), each with its own cache of parsed profiles (the
** caller gives each its share of --cache-memory); rendered pages and
** runs-page rows are text, kept once for all workers in the shared text
** cache below.  A request goes to the worker its path hashes to when that
** one is idle (its profiles are there), else to any idle one, else waits.
** --timeout applies to each request's work: the caller's thread watches
** the deadlines and stops a late worker's Lua (a hook) and its parser
** (its own interrupt flag, pl_call_thread_parse_hooks).  SIGINT and
** SIGTERM are blocked in every thread and taken by sigtimedwait in the
** caller's: the daemon stops after the requests in flight (which are
** interrupted), and serve() returns.
**
** Host layer, like session.c: host.c lists it among the modules.
*/
#include "serve.h"
#include "host.h"
#include "pl_call.h"
#include "pl_limits.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <lauxlib.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_URI     4096
#define MAX_HEADERS 64
#define MAX_ARGS    64
#define MAX_WORKERS 16

/* ---- path rules (pure) ------------------------------------------------------ */

/* 0 when rel (relative to DIR, '/'-separated, "" is DIR itself) may name a
** file; else the HTTP status to refuse it with and *why. */
static int check_rel(const char *rel, size_t len, const char **why) {
  if (strlen(rel) != len) {
    *why = "NUL byte in the path";
    return 400;
  }
  if (rel[0] == '/') {
    *why = "absolute path";
    return 403;
  }
  const char *seg = rel;
  for (size_t i = 0; i <= len; i++) {
    unsigned char c = (unsigned char)rel[i];
    if (c == '/' || c == '\0') {
      size_t n = (size_t)(rel + i - seg);
      if (n == 0 && !(c == '\0' && (i == 0 || rel[i - 1] == '/'))) {
        *why = "empty path segment";
        return 403;
      }
      if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) {
        *why = "'.' or '..' in the path";
        return 403;
      }
      seg = rel + i + 1;
    } else if (c < 0x20 || c == 0x7f || c == '\\') {
      *why = "control byte or backslash in the path";
      return 403;
    }
  }
  return 0;
}

/* ---- the server --------------------------------------------------------------- */

typedef struct worker {
  lua_State *own;         /* a state of its own; NULL for worker 0 (the caller's) */
  lua_State *T;           /* the thread its requests run on */
  int handler_ref;        /* T's registry: the Lua handler */
  int busy;               /* under server.mu */
  double deadline;        /* monotonic seconds; 0: none */
  volatile int interrupt; /* its parsers' stop flag */
  volatile sig_atomic_t time_up, stop;
  volatile size_t done, total; /* the running parse's progress (bytes) */
  char path[256];              /* the request it serves (for httpd.busy) */
} worker;

typedef struct server {
  worker w[MAX_WORKERS];
  int nw;
  pthread_mutex_t mu; /* busy flags, paths, the text cache */
  pthread_cond_t idle;
  char root[PATH_MAX]; /* realpath of DIR */
  size_t rootlen;
  char token[129]; /* "" when none */
  int loopback;    /* bound to a loopback address */
  char port_text[16];
  double timeout; /* per request, seconds (0: none) */
  volatile int stopping;
  int jobs; /* background jobs running (under mu) */
} server;

static server *the_server; /* for check() from Lua; one server per process */

static double mono_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the shared text cache: rendered pages, by key, least recently used out -- */

typedef struct tentry {
  struct tentry *next;
  char *key;
  size_t klen;
  char *val;
  size_t vlen;
  unsigned long used;
} tentry;
#define TBUCKETS  4096
#define TOVERHEAD 64
static tentry *tbucket[TBUCKETS];
static size_t tbytes, tcap; /* under the server's mutex */
static unsigned long ttick;

static size_t thash(const char *k, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)k[i];
    h *= 1099511628211ull;
  }
  return (size_t)(h % TBUCKETS);
}

static tentry **tfind(const char *k, size_t n) {
  tentry **pp = &tbucket[thash(k, n)];
  while (*pp && !((*pp)->klen == n && memcmp((*pp)->key, k, n) == 0)) pp = &(*pp)->next;
  return pp;
}

static void tunlink(tentry **pp) {
  tentry *e = *pp;
  *pp = e->next;
  tbytes -= e->klen + e->vlen + TOVERHEAD;
  free(e->key);
  free(e->val);
  free(e);
}

static void tevict_oldest(void) {
  tentry **best = NULL;
  for (size_t b = 0; b < TBUCKETS; b++)
    for (tentry **pp = &tbucket[b]; *pp; pp = &(*pp)->next)
      if (!best || (*pp)->used < (*best)->used) best = pp;
  if (best) tunlink(best);
}

static void tclear(void) {
  for (size_t b = 0; b < TBUCKETS; b++)
    while (tbucket[b]) tunlink(&tbucket[b]);
}

/* realpath of DIR/rel, which must stay under DIR.  0 and out filled, or
** an HTTP status (404: no such file; 403: outside DIR or refused). */
static int resolve(const server *s, const char *rel, size_t len, char *out, const char **why) {
  int st = check_rel(rel, len, why);
  if (st) return st;
  char joined[PATH_MAX];
  if ((size_t)snprintf(joined, sizeof joined, "%s/%s", s->root, rel) >= sizeof joined) {
    *why = "path too long";
    return 414;
  }
  if (realpath(joined, out) == NULL) {
    *why = errno == EACCES ? "permission denied" : "no such file";
    return errno == EACCES ? 403 : 404;
  }
  if (strncmp(out, s->root, s->rootlen) != 0 ||
      (out[s->rootlen] != '\0' && out[s->rootlen] != '/' && !(s->rootlen == 1 && s->root[0] == '/'))) {
    *why = "the path leaves the served folder (a symlink?)";
    return 403;
  }
  return 0;
}

/* per request: the raw URI, as the client sent it (before decoding) */
typedef struct request {
  char raw[MAX_URI + 1];
  int too_long;
} request;

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c) {
  (void)cls;
  (void)c;
  request *r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  size_t n = strlen(uri);
  if (n > MAX_URI) r->too_long = 1;
  else memcpy(r->raw, uri, n + 1);
  return r;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
  (void)cls;
  (void)c;
  (void)toe;
  free(*con_cls);
  *con_cls = NULL;
}

static void security_headers(struct MHD_Response *r, int html) {
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(r, "X-Frame-Options", "DENY");
  MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
  MHD_add_response_header(r, "Cache-Control", "no-store");
  MHD_add_response_header(r, "Cross-Origin-Resource-Policy", "same-origin");
  if (!html) MHD_add_response_header(r, "Content-Security-Policy", "default-src 'none'; sandbox");
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *ctype, const char *body, size_t len,
                             const char *cookie) {
  struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (r == NULL) return MHD_NO;
  MHD_add_response_header(r, "Content-Type", ctype);
  security_headers(r, strncmp(ctype, "text/html", 9) == 0);
  if (status == 405) MHD_add_response_header(r, "Allow", "GET, HEAD");
  if (cookie) MHD_add_response_header(r, "Set-Cookie", cookie);
  enum MHD_Result ok = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ok;
}

static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, const char *why) {
  char msg[300];
  int n = snprintf(msg, sizeof msg, "%u: %s\n", status, why);
  return reply(c, status, "text/plain; charset=utf-8", msg, (size_t)n, NULL);
}

/* constant-time comparison of a presented token with the server's */
static int token_ok(const server *s, const char *given) {
  if (given == NULL) return 0;
  size_t a = strlen(given), b = strlen(s->token);
  unsigned char d = (unsigned char)(a != b);
  for (size_t i = 0; i < b; i++) d |= (unsigned char)((i < a ? given[i] : 0) ^ s->token[i]);
  return d == 0;
}

/* the Host header names this server on the loopback address */
static int host_ok(const server *s, const char *host) {
  if (host == NULL) return 0;
  static const char *const names[] = { "127.0.0.1", "localhost", "[::1]", NULL };
  for (int i = 0; names[i]; i++) {
    size_t n = strlen(names[i]);
    if (strncasecmp(host, names[i], n) == 0 &&
        (host[n] == '\0' || (host[n] == ':' && strcmp(host + n + 1, s->port_text) == 0)))
      return 1;
  }
  return 0;
}

typedef struct argv_ctx {
  lua_State *L;
  int n;
} argv_ctx;

static enum MHD_Result push_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  (void)kind;
  argv_ctx *a = cls;
  if (a->n >= MAX_ARGS) return MHD_NO;
  lua_createtable(a->L, 2, 0);
  lua_pushstring(a->L, key);
  lua_rawseti(a->L, -2, 1);
  lua_pushstring(a->L, value ? value : "");
  lua_rawseti(a->L, -2, 2);
  lua_rawseti(a->L, -2, ++a->n);
  return MHD_YES;
}

/* The hook on a worker's thread: stops its Lua code when the watchdog
** (serve()'s loop) found its deadline passed, or the server stopping.  A
** spent budget stays armed, so a pcall that catches the error gets it again. */
static void worker_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  server *s = the_server;
  if (s == NULL) return;
  for (int i = 0; i < s->nw; i++) {
    worker *w = &s->w[i];
    if (w->T != L) continue;
    if (w->time_up) {
      lua_sethook(L, worker_hook, LUA_MASKCOUNT, 1);
      luaL_error(L, "time limit exceeded (--timeout %f s)", s->timeout);
    }
    if (w->stop) luaL_error(L, "interrupted");
    return;
  }
}

static void on_parse_progress(void *ud, size_t done, size_t total) {
  worker *w = ud;
  w->done = done;
  w->total = total;
}

/* A worker for this path: the one it hashes to when idle (its profiles are
** cached there), else any idle one, else wait.  Under no lock; returns it busy. */
static worker *acquire(server *s, const char *url) {
  size_t h = thash(url, strlen(url));
  /* the file's path decides, not the route: /run/X and /timeline/X meet */
  const char *rel = strchr(url + 1, '/');
  if (rel) h = thash(rel, strlen(rel));
  pthread_mutex_lock(&s->mu);
  worker *w = NULL;
  for (;;) {
    worker *pref = &s->w[h % (size_t)s->nw];
    if (!pref->busy) w = pref;
    else
      for (int i = 0; i < s->nw && !w; i++)
        if (!s->w[i].busy) w = &s->w[i];
    if (w) break;
    pthread_cond_wait(&s->idle, &s->mu);
  }
  w->busy = 1;
  snprintf(w->path, sizeof w->path, "%s", url);
  w->done = w->total = 0;
  w->time_up = 0;
  w->stop = s->stopping;
  w->interrupt = s->stopping;
  w->deadline = s->timeout > 0 ? mono_now() + s->timeout : 0;
  pthread_mutex_unlock(&s->mu);
  return w;
}

static void release(server *s, worker *w) {
  pthread_mutex_lock(&s->mu);
  w->busy = 0;
  w->deadline = 0;
  w->path[0] = '\0';
  pthread_cond_broadcast(&s->idle);
  pthread_mutex_unlock(&s->mu);
}

/* A background job: the request the handler deferred (req.defer = true:
** a long parse), run again on the same worker with req.background = true
** while the client reads the progress page; its result goes to the caches,
** not to a client.  The worker stays busy until it ends. */
typedef struct job {
  server *s;
  worker *w;
  int req_ref;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  server *s = j->s;
  worker *w = j->w;
  lua_State *T = w->T;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  pl_call_thread_parse_hooks(&w->interrupt, on_parse_progress, w);
  lua_settop(T, 0);
  lua_pushcfunction(T, pl_msghandler);
  lua_rawgeti(T, LUA_REGISTRYINDEX, w->handler_ref);
  lua_rawgeti(T, LUA_REGISTRYINDEX, j->req_ref);
  lua_pushboolean(T, 1);
  lua_setfield(T, -2, "background");
  lua_sethook(T, worker_hook, LUA_MASKCOUNT, 100000);
  if (lua_pcall(T, 1, 0, 1) != LUA_OK && !w->stop)
    fprintf(stderr, "perflab serve: %s (background): %s\n", w->path,
            lua_isstring(T, -1) ? lua_tostring(T, -1) : "(error)");
  lua_sethook(T, NULL, 0, 0);
  pl_call_thread_parse_hooks(NULL, NULL, NULL);
  luaL_unref(T, LUA_REGISTRYINDEX, j->req_ref);
  lua_settop(T, 0);
  free(j);
  pthread_mutex_lock(&s->mu); /* one step: serve() may end once jobs is 0 */
  s->jobs--;
  w->busy = 0;
  w->deadline = 0;
  w->path[0] = '\0';
  pthread_cond_broadcast(&s->idle);
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* handler(req) -> status, content_type, body [, filename]: on a worker's
** thread.  Lua-side errors become a 500 page. */
static enum MHD_Result call_lua(server *s, struct MHD_Connection *c, const char *method, const char *url,
                                const char *cookie) {
  worker *w = acquire(s, url);
  lua_State *T = w->T;
  pl_call_thread_parse_hooks(&w->interrupt, on_parse_progress, w);
  lua_settop(T, 0);
  lua_pushcfunction(T, pl_msghandler);
  lua_rawgeti(T, LUA_REGISTRYINDEX, w->handler_ref);
  lua_createtable(T, 0, 3);
  lua_pushstring(T, method);
  lua_setfield(T, -2, "method");
  lua_pushstring(T, url);
  lua_setfield(T, -2, "path");
  lua_newtable(T);
  argv_ctx a = { T, 0 };
  MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, push_arg, &a);
  lua_setfield(T, -2, "query");
  lua_pushboolean(T, s->nw > 1);
  lua_setfield(T, -2, "can_defer"); /* another worker can answer the reloads */
  lua_pushvalue(T, -1);
  int req_ref = luaL_ref(T, LUA_REGISTRYINDEX);
  if (s->timeout > 0 || s->stopping) lua_sethook(T, worker_hook, LUA_MASKCOUNT, 100000);
  int st = lua_pcall(T, 1, 4, 1);
  int timed_out = w->time_up;
  lua_sethook(T, NULL, 0, 0);
  pl_call_thread_parse_hooks(NULL, NULL, NULL);
  enum MHD_Result ok;
  if (st != LUA_OK && timed_out) {
    /* the spent budget re-raises at every hook, the Lua error page too */
    fprintf(stderr, "perflab serve: %s: time limit exceeded (--timeout)\n", url);
    ok = refuse(c, 503, "this page took longer than --timeout allows");
  } else if (st != LUA_OK) {
    const char *m = lua_tostring(T, -1);
    if (m == NULL && pl_is_fail(T, -1)) {
      lua_getfield(T, -1, "message");
      m = lua_tostring(T, -1);
    }
    fprintf(stderr, "perflab serve: %s: %s\n", url, m ? m : "(error)");
    ok = refuse(c, 500, "the page failed (the server's log has why)");
  } else {
    unsigned status = (unsigned)luaL_optinteger(T, 2, 200);
    const char *ctype = luaL_optstring(T, 3, "text/html; charset=utf-8");
    size_t len = 0;
    const char *body = lua_tolstring(T, 4, &len);
    if (body == NULL || status < 100 || status > 599) ok = refuse(c, 500, "the page gave no body");
    else {
      struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
      if (r == NULL) ok = MHD_NO;
      else {
        MHD_add_response_header(r, "Content-Type", ctype);
        security_headers(r, strncmp(ctype, "text/html", 9) == 0);
        const char *fname = lua_tostring(T, 5);
        if (fname) {
          char cd[300];
          snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", fname); /* fname: [A-Za-z0-9._-] (serve.lua) */
          MHD_add_response_header(r, "Content-Disposition", cd);
        }
        if (cookie) MHD_add_response_header(r, "Set-Cookie", cookie);
        ok = MHD_queue_response(c, status, r);
        MHD_destroy_response(r);
      }
    }
  }
  /* deferred: the work goes on in a job of its own, on this worker */
  int deferred = 0;
  if (st == LUA_OK && !s->stopping) {
    lua_rawgeti(T, LUA_REGISTRYINDEX, req_ref);
    lua_getfield(T, -1, "defer");
    deferred = lua_toboolean(T, -1);
  }
  lua_settop(T, 0);
  if (deferred) {
    job *j = malloc(sizeof *j);
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (j) {
      *j = (job){ s, w, req_ref };
      pthread_mutex_lock(&s->mu);
      s->jobs++;
      w->done = w->total = 0;
      w->deadline = s->timeout > 0 ? mono_now() + s->timeout : 0;
      pthread_mutex_unlock(&s->mu);
      if (pthread_create(&th, &at, run_job, j) == 0) {
        pthread_attr_destroy(&at);
        return ok;
      }
      pthread_mutex_lock(&s->mu);
      s->jobs--;
      pthread_mutex_unlock(&s->mu);
      free(j);
    }
    pthread_attr_destroy(&at);
  }
  luaL_unref(T, LUA_REGISTRYINDEX, req_ref);
  release(s, w);
  return ok;
}

/* ---- cached pages without a worker ---------------------------------------------
** A run or timeline page already rendered is in the text cache under the key
** serve.lua's cached_text gives it: "page", the route, the file's realpath,
** "SIZE/MTIME_NS", the query's pairs "k=v&..." in order, NUL-separated.
** The same key is made here, and a hit is answered at once: a cached page
** does not wait for a worker that a slow report or a parse holds. */
typedef struct qkey {
  char buf[MAX_URI + 64];
  size_t n;
  int n_args, bad;
} qkey;

static enum MHD_Result add_q(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  (void)kind;
  qkey *q = cls;
  if (++q->n_args > MAX_ARGS) {
    q->bad = 1;
    return MHD_NO;
  }
  int w = snprintf(q->buf + q->n, sizeof q->buf - q->n, "%s%s=%s", q->n_args > 1 ? "&" : "", key, value ? value : "");
  if (w < 0 || (size_t)w >= sizeof q->buf - q->n) {
    q->bad = 1;
    return MHD_NO;
  }
  q->n += (size_t)w;
  return MHD_YES;
}

static int fast_page(server *s, struct MHD_Connection *c, const char *url, const char *cookie, enum MHD_Result *ok) {
  const char *route;
  if (strncmp(url, "/run/", 5) == 0) route = "run";
  else if (strncmp(url, "/timeline/", 10) == 0) route = "timeline";
  else return 0;
  if (tcap == 0) return 0;
  const char *rel = url + strlen(route) + 2;
  char abs[PATH_MAX];
  const char *why;
  if (resolve(s, rel, strlen(rel), abs, &why) != 0) return 0;
  struct stat sb;
  if (stat(abs, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
  qkey q;
  q.n = 0;
  q.n_args = 0;
  q.bad = 0;
  q.buf[0] = '\0';
  MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_q, &q);
  if (q.bad) return 0;
  char key[PATH_MAX + sizeof q.buf + 96];
  int kn = snprintf(key, sizeof key, "page%c%s%c%s%c%lld/%lld%c%s", 0, route, 0, abs, 0, (long long)sb.st_size,
                    (long long)sb.st_mtim.tv_sec * 1000000000LL + (long long)sb.st_mtim.tv_nsec, 0, q.buf);
  if (kn < 0 || (size_t)kn >= sizeof key) return 0;
  struct MHD_Response *r = NULL;
  pthread_mutex_lock(&s->mu);
  tentry **pp = tfind(key, (size_t)kn);
  if (*pp) {
    (*pp)->used = ++ttick;
    r = MHD_create_response_from_buffer((*pp)->vlen, (*pp)->val, MHD_RESPMEM_MUST_COPY);
  }
  pthread_mutex_unlock(&s->mu);
  if (r == NULL) return 0;
  MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
  security_headers(r, 1);
  if (cookie) MHD_add_response_header(r, "Set-Cookie", cookie);
  *ok = MHD_queue_response(c, 200, r);
  MHD_destroy_response(r);
  return 1;
}

static enum MHD_Result count_one(void *cls, enum MHD_ValueKind k, const char *key, const char *v) {
  (void)k;
  (void)key;
  (void)v;
  ++*(int *)cls;
  return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
  (void)version;
  (void)upload_data;
  server *s = cls;
  request *rq = *con_cls;
  if (rq == NULL) return MHD_NO; /* out of memory: drop it */
  if (*upload_data_size != 0) {
    *upload_data_size = 0;
    return MHD_YES;
  } /* body after an answer: discarded */
  if (s->stopping) return refuse(c, 503, "the server is stopping");
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) return refuse(c, 405, "read-only: GET and HEAD only");
  const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
  if ((cl && strcmp(cl, "0") != 0) || MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding"))
    return refuse(c, 413, "a request has no body here");
  int nh = 0;
  MHD_get_connection_values(c, MHD_HEADER_KIND, count_one, &nh);
  if (nh > MAX_HEADERS) return refuse(c, 431, "too many header fields");
  if (rq->too_long) return refuse(c, 414, "URI too long");
  /* an encoded NUL anywhere; an encoded slash or backslash in the path
  ** (a query value is a path that check() reads after decoding: forms
  ** send "a/b" as a%2Fb) */
  const char *qmark = strchr(rq->raw, '?');
  for (const char *p = rq->raw; (p = strchr(p, '%')) != NULL; p++) {
    if (strncmp(p + 1, "00", 2) == 0) return refuse(c, 400, "NUL byte in the request");
    if ((qmark == NULL || p < qmark) && (strncasecmp(p + 1, "2f", 2) == 0 || strncasecmp(p + 1, "5c", 2) == 0))
      return refuse(c, 403, "encoded slash or backslash in the path");
  }
  const char *cookie_out = NULL;
  char cookie_buf[200];
  if (s->token[0]) {
    const char *given = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    const char *ck = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, "perflab_token");
    if (token_ok(s, given)) {
      snprintf(cookie_buf, sizeof cookie_buf, "perflab_token=%s; HttpOnly; SameSite=Strict; Path=/", s->token);
      cookie_out = cookie_buf;
    } else if (!(token_ok(s, ck) || (auth && strncmp(auth, "token ", 6) == 0 && token_ok(s, auth + 6))))
      return refuse(c, 403, "this server needs its token (the URL it printed at start has it)");
  } else if (s->loopback && !host_ok(s, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"))) {
    return refuse(c, 403, "the Host header does not name this server's loopback address");
  }
  if (url[0] != '/') return refuse(c, 400, "the path must start with /");
  const char *why;
  int st = check_rel(url + 1, strlen(url + 1), &why);
  if (st) return refuse(c, (unsigned)st, why);
  enum MHD_Result fok;
  if (fast_page(s, c, url, cookie_out, &fok)) return fok;
  return call_lua(s, c, method, url, cookie_out);
}

/* ---- Lua functions ------------------------------------------------------------ */

/* check(rel) -> absolute path | nil, status, why: rel (relative to the
** served folder) after the path rules and realpath containment. */
static int h_check(lua_State *L) {
  size_t len;
  const char *rel = luaL_checklstring(L, 1, &len);
  if (the_server == NULL) return luaL_error(L, "httpd.check: no server is running");
  char out[PATH_MAX];
  const char *why = NULL;
  int st = resolve(the_server, rel, len, out, &why);
  if (st == 0) {
    lua_pushstring(L, out);
    return 1;
  }
  luaL_pushfail(L);
  lua_pushinteger(L, st);
  lua_pushstring(L, why);
  return 3;
}

/* check_rel(rel) -> true | nil, status, why: the path rules alone (tests) */
static int h_check_rel(lua_State *L) {
  size_t len;
  const char *rel = luaL_checklstring(L, 1, &len);
  const char *why = NULL;
  int st = check_rel(rel, len, &why);
  if (st == 0) {
    lua_pushboolean(L, 1);
    return 1;
  }
  luaL_pushfail(L);
  lua_pushinteger(L, st);
  lua_pushstring(L, why);
  return 3;
}

/* stat(path) -> kind ("file" | "dir" | "other"), size, mtime (s),
** mtime_ns (a file rewritten within a second changes it) | nil, message */
static int h_stat(lua_State *L) {
  const char *p = luaL_checkstring(L, 1);
  struct stat sb;
  if (stat(p, &sb) != 0) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", p, strerror(errno));
    return 2;
  }
  lua_pushstring(L, S_ISREG(sb.st_mode) ? "file" : S_ISDIR(sb.st_mode) ? "dir" : "other");
  lua_pushinteger(L, (lua_Integer)sb.st_size);
  lua_pushinteger(L, (lua_Integer)sb.st_mtime);
  lua_pushinteger(L, (lua_Integer)sb.st_mtim.tv_sec * 1000000000 + (lua_Integer)sb.st_mtim.tv_nsec);
  return 4;
}

/* token() -> 48 hex digits from the kernel's random source */
static int h_token(lua_State *L) {
  unsigned char b[24];
  size_t got = 0;
  while (got < sizeof b) {
    ssize_t n = getrandom(b + got, sizeof b - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return luaL_error(L, "no random bytes for a token: %s", strerror(errno));
    }
    got += (size_t)n;
  }
  char hex[49];
  for (size_t i = 0; i < sizeof b; i++) snprintf(hex + 2 * i, 3, "%02x", b[i]);
  lua_pushstring(L, hex);
  return 1;
}

/* text_get(key) -> text | nil: the shared text cache (every worker's pages) */
static int h_text_get(lua_State *L) {
  size_t kn;
  const char *k = luaL_checklstring(L, 1, &kn);
  server *s = the_server;
  if (s == NULL || tcap == 0) {
    luaL_pushfail(L);
    return 1;
  }
  for (int tries = 0; tries < 3; tries++) {
    pthread_mutex_lock(&s->mu);
    tentry **pp = tfind(k, kn);
    size_t n = *pp ? (*pp)->vlen : 0;
    int found = *pp != NULL;
    pthread_mutex_unlock(&s->mu);
    if (!found) break;
    luaL_Buffer b;
    char *dst = luaL_buffinitsize(L, &b, n); /* may raise: no lock held */
    pthread_mutex_lock(&s->mu);
    pp = tfind(k, kn);
    int same = *pp && (*pp)->vlen == n;
    if (same) {
      memcpy(dst, (*pp)->val, n);
      (*pp)->used = ++ttick;
    }
    pthread_mutex_unlock(&s->mu);
    if (same) {
      luaL_pushresultsize(&b, n);
      return 1;
    }
    luaL_pushresultsize(&b, 0);
    lua_pop(L, 1); /* replaced meanwhile: again */
  }
  luaL_pushfail(L);
  return 1;
}

/* text_put(key, text) -> true | nil (no server, or larger than the cache) */
static int h_text_put(lua_State *L) {
  size_t kn, vn;
  const char *k = luaL_checklstring(L, 1, &kn);
  const char *v = luaL_checklstring(L, 2, &vn);
  server *s = the_server;
  if (s == NULL || kn + vn + TOVERHEAD > tcap) {
    luaL_pushfail(L);
    return 1;
  }
  tentry *e = malloc(sizeof *e);
  char *kc = malloc(kn ? kn : 1), *vc = malloc(vn ? vn : 1);
  if (!e || !kc || !vc) {
    free(e);
    free(kc);
    free(vc);
    luaL_pushfail(L);
    return 1;
  }
  memcpy(kc, k, kn);
  memcpy(vc, v, vn);
  *e = (tentry){ NULL, kc, kn, vc, vn, 0 };
  pthread_mutex_lock(&s->mu);
  tentry **pp = tfind(k, kn);
  if (*pp) tunlink(pp);
  while (tbytes + kn + vn + TOVERHEAD > tcap && tbytes > 0) tevict_oldest();
  e->used = ++ttick;
  pp = &tbucket[thash(k, kn)];
  e->next = *pp;
  *pp = e;
  tbytes += kn + vn + TOVERHEAD;
  pthread_mutex_unlock(&s->mu);
  lua_pushboolean(L, 1);
  return 1;
}

/* busy() -> {{path =, done =, total =}...}: the requests the other workers
** are serving, with the progress of the parse each runs (bytes; 0 when none) */
static int h_busy(lua_State *L) {
  server *s = the_server;
  lua_newtable(L);
  if (s == NULL) return 1;
  struct {
    char path[256];
    size_t done, total;
  } b[MAX_WORKERS];
  int n = 0;
  pthread_mutex_lock(&s->mu);
  for (int i = 0; i < s->nw; i++) {
    worker *w = &s->w[i];
    if (!w->busy || w->T == L) continue;
    memcpy(b[n].path, w->path, sizeof b[n].path);
    b[n].done = w->done;
    b[n].total = w->total;
    n++;
  }
  pthread_mutex_unlock(&s->mu);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, b[i].path);
    lua_setfield(L, -2, "path");
    lua_pushinteger(L, (lua_Integer)b[i].done);
    lua_setfield(L, -2, "done");
    lua_pushinteger(L, (lua_Integer)b[i].total);
    lua_setfield(L, -2, "total");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int h_memory(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)pl_memory_in_use());
  return 1;
}

static int is_loopback(const struct sockaddr *sa) {
  if (sa->sa_family == AF_INET) return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
  if (sa->sa_family == AF_INET6) {
    const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a);
  }
  return 0;
}

/* A worker's state of its own: the perflab modules, --sandbox if the
** caller has it, and perflab.serve's worker(cap) as its handler.  0, or -1
** with the message on the caller's stack. */
static const char WORKER_INIT[] = "local cap, sandbox = ...\n"
                                  "if sandbox then require('perflab.sandbox').enable() end\n"
                                  "return require('perflab.serve').worker(cap)\n";

static int start_worker(lua_State *caller, worker *w, lua_Integer cap, int sandbox) {
  lua_State *L = pl_host_newstate();
  if (L == NULL) {
    lua_pushliteral(caller, "not enough memory for a worker");
    return -1;
  }
  if (luaL_loadbufferx(L, WORKER_INIT, sizeof WORKER_INIT - 1, "=serve worker", "t") != LUA_OK) goto err;
  lua_pushinteger(L, cap);
  lua_pushboolean(L, sandbox);
  if (lua_pcall(L, 2, 1, 0) != LUA_OK || !lua_isfunction(L, -1)) goto err;
  w->own = L;
  w->T = L;
  w->handler_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
err:
  lua_pushfstring(caller, "a worker did not start: %s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "(no handler)");
  lua_close(L);
  return -1;
}

static void close_workers(lua_State *L, server *s) {
  for (int i = 0; i < s->nw; i++) {
    if (s->w[i].own) lua_close(s->w[i].own);
    else if (s->w[i].handler_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->w[i].handler_ref);
    s->w[i].own = NULL;
    s->w[i].handler_ref = LUA_NOREF;
  }
  s->nw = 0;
}

/* A server frees what it evicts and must give it back: glibc raises its
** mmap threshold (up to 32 MiB) after each large block freed, so the next
** table columns come from the heap, where what an eviction frees stays
** in the process between live blocks.  On a churn of cold parses under a
** 300 MB cache cap the RSS grew 36-40 MB a parse for a 14 MB profile, and
** 19-21 MB with the threshold fixed at 128 KiB (large blocks mmapped,
** returned at free).  The CLI keeps glibc's default (one run, then exit). */
static void keep_memory_returnable(void) {
  pl_call_bigpages_after_load(0); /* (which fixes the threshold at 32 MiB) */
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

/* httpd.serve's options (the table at 1). */
typedef struct serve_opts {
  const char *root, *host, *token;
  lua_Integer port, nw, wcap, tc;
  double timeout;
  int sandbox;
} serve_opts;

/* [o h] -> [o h root host port token timeout ready] (the strings anchored) */
static void read_serve_opts(lua_State *L, serve_opts *o) {
  lua_getfield(L, 1, "root");
  lua_getfield(L, 1, "host");
  lua_getfield(L, 1, "port");
  lua_getfield(L, 1, "token");
  lua_getfield(L, 1, "timeout");
  lua_getfield(L, 1, "ready"); /* [o h root host port token timeout ready] */
  o->root = luaL_checkstring(L, 3);
  o->host = luaL_optstring(L, 4, "127.0.0.1");
  o->port = luaL_optinteger(L, 5, 8000);
  o->token = luaL_optstring(L, 6, "");
  o->timeout = luaL_optnumber(L, 7, 0);
  if (o->port < 0 || o->port > 65535) luaL_error(L, "port %d out of range", (int)o->port);
  if (strlen(o->token) > 128) luaL_error(L, "token longer than 128 characters");
  lua_getfield(L, 1, "workers");
  lua_getfield(L, 1, "worker_cap");
  lua_getfield(L, 1, "text_cache");
  lua_getfield(L, 1, "sandbox"); /* [... workers cap text sandbox] */
  o->nw = luaL_optinteger(L, 9, 1);
  o->wcap = luaL_optinteger(L, 10, 0);
  o->tc = luaL_optinteger(L, 11, 0);
  o->sandbox = lua_toboolean(L, 12);
  lua_settop(L, 8);
  if (o->nw < 1 || o->nw > MAX_WORKERS) luaL_error(L, "workers: 1 to %d", MAX_WORKERS);
}

/* The server: its root, worker 0 (a thread of L running the handler at 2)
** and the other workers.  NULL when one cannot be had, with fail and the
** message pushed.
** [o h ... ready] -> [... ready s T]  |  [... ready s ... nil msg] */
static server *new_server(lua_State *L, const serve_opts *o) {
  server *s = (server *)lua_newuserdatauv(L, sizeof *s, 0); /* [.. s]: anchored on this stack while serving */
  memset(s, 0, sizeof *s);
  for (int i = 0; i < MAX_WORKERS; i++) s->w[i].handler_ref = LUA_NOREF;
  if (realpath(o->root, s->root) == NULL) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", o->root, strerror(errno));
    return NULL;
  }
  s->rootlen = strlen(s->root);
  strcpy(s->token, o->token);
  s->timeout = o->timeout;
  s->w[0].T = lua_newthread(L); /* [.. s T]: anchored on this stack */
  lua_pushvalue(L, 2);
  s->w[0].handler_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  s->nw = 1;
  for (int i = 1; i < o->nw; i++) {
    if (start_worker(L, &s->w[i], o->wcap, o->sandbox) != 0) {
      close_workers(L, s);
      luaL_pushfail(L);
      lua_insert(L, -2);
      return NULL;
    }
    s->nw = i + 1;
  }
  return s;
}

/* Starts the daemon on host:port, with SIGINT/SIGTERM blocked (the mask
** before in *old; the daemon's threads inherit it).  NULL when it cannot
** listen, with fail and the message pushed (the workers closed, the mask
** restored). */
static struct MHD_Daemon *start_daemon(lua_State *L, server *s, const serve_opts *o, const sigset_t *stop,
                                       sigset_t *old) {
  char portstr[16];
  snprintf(portstr, sizeof portstr, "%d", (int)o->port);
  struct addrinfo hints, *ai = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  int gai = getaddrinfo(o->host, portstr, &hints, &ai);
  if (gai != 0 || ai == NULL) {
    close_workers(L, s);
    luaL_pushfail(L);
    lua_pushfstring(L, "cannot resolve --host '%s': %s", o->host, gai_strerror(gai));
    return NULL;
  }
  s->loopback = is_loopback(ai->ai_addr);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
  if (ai->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
  pthread_sigmask(SIG_BLOCK, stop, old);
  signal(SIGPIPE, SIG_IGN);
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->idle, NULL);
  tcap = o->tc > 0 ? (size_t)o->tc : 0;
  the_server = s;
  struct MHD_Daemon *d =
      MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                       MHD_OPTION_URI_LOG_CALLBACK, uri_log, (void *)s, MHD_OPTION_NOTIFY_COMPLETED, completed,
                       (void *)s, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768, MHD_OPTION_CONNECTION_LIMIT,
                       (unsigned)128, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
  int bind_errno = errno;
  freeaddrinfo(ai);
  if (d == NULL) {
    the_server = NULL;
    pthread_sigmask(SIG_SETMASK, old, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->idle);
    close_workers(L, s);
    luaL_pushfail(L);
    lua_pushfstring(L, "cannot listen on %s port %s: %s", o->host, portstr,
                    bind_errno ? strerror(bind_errno) : "libmicrohttpd refused");
  }
  return d;
}

/* Asks every busy worker to stop at its next hook (s->mu held). */
static void stop_busy(server *s) {
  for (int i = 0; i < s->nw; i++) {
    worker *w = &s->w[i];
    if (!w->busy) continue;
    w->stop = 1;
    w->interrupt = 1;
    lua_sethook(w->T, worker_hook, LUA_MASKCOUNT, 1);
  }
}

/* The watchdog, until SIGINT or SIGTERM (returned): every 50 ms, a busy
** worker past its deadline is stopped (its Lua at the next hook, its
** parser at its next poll). */
static int watch(server *s, const sigset_t *stop) {
  struct timespec tick = { 0, 50 * 1000 * 1000 };
  for (;;) {
    int sig = sigtimedwait(stop, NULL, &tick);
    if (sig == SIGINT || sig == SIGTERM) return sig;
    double now = mono_now();
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < s->nw; i++) {
      worker *w = &s->w[i];
      if (w->busy && w->deadline > 0 && now > w->deadline && !w->time_up) {
        w->time_up = 1;
        w->interrupt = 1;
        lua_sethook(w->T, worker_hook, LUA_MASKCOUNT, 1);
      }
    }
    pthread_mutex_unlock(&s->mu);
  }
}

/* Stops the requests in flight, the daemon and the background jobs, and
** frees the server's state. */
static void stop_server(lua_State *L, server *s, struct MHD_Daemon *d) {
  pthread_mutex_lock(&s->mu);
  s->stopping = 1;
  stop_busy(s); /* the requests in flight stop at their next hook */
  pthread_mutex_unlock(&s->mu);
  MHD_stop_daemon(d);         /* waits for the connection threads */
  pthread_mutex_lock(&s->mu); /* and the background jobs, interrupted above */
  while (s->jobs > 0) {
    stop_busy(s);
    pthread_cond_wait(&s->idle, &s->mu);
  }
  pthread_mutex_unlock(&s->mu);
  the_server = NULL;
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->idle);
  tclear();
  close_workers(L, s);
}

/* serve{root=, host=, port=, token=, timeout=, ready=function(url),
** workers=N (1..16, default 1), worker_cap=BYTES (each new worker's
** profile cache), text_cache=BYTES (the shared page cache, default 0: none),
** sandbox=bool}, handler -> true, signal name when stopped by SIGINT/SIGTERM
** | nil, message.  Blocks.
** [o h] -> [o h root host port token timeout ready s T ... r1 r2] */
static int h_serve(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  if (the_server) return luaL_error(L, "httpd.serve: a server is already running");
  serve_opts o;
  read_serve_opts(L, &o);
  keep_memory_returnable();
  server *s = new_server(L, &o);
  if (s == NULL) return 2;
  /* SIGINT/SIGTERM: blocked before the daemon's threads start (they
  ** inherit the mask), taken by sigtimedwait in watch */
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  struct MHD_Daemon *d = start_daemon(L, s, &o, &stop, &old);
  if (d == NULL) return 2;
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  unsigned bound = info ? info->port : (unsigned)o.port;
  snprintf(s->port_text, sizeof s->port_text, "%u", bound);
  int status = LUA_OK;
  if (!lua_isnil(L, 8)) { /* ready(port): prints the URL */
    lua_pushvalue(L, 8);
    lua_pushinteger(L, (lua_Integer)bound);
    /* worker 0 is a thread of this state: it waits until ready returns */
    pthread_mutex_lock(&s->mu);
    s->w[0].busy = 1;
    pthread_mutex_unlock(&s->mu);
    status = lua_pcall(L, 1, 0, 0);
    release(s, &s->w[0]);
  }
  int sig = status == LUA_OK ? watch(s, &stop) : 0;
  stop_server(L, s, d);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (status != LUA_OK) return lua_error(L);
  lua_pushboolean(L, 1);
  lua_pushstring(L, sig == SIGTERM ? "SIGTERM" : "SIGINT");
  return 2;
}

static const luaL_Reg funcs[] = { { "serve", h_serve },         { "check", h_check },
                                  { "check_rel", h_check_rel }, { "stat", h_stat },
                                  { "token", h_token },         { "memory_in_use", h_memory },
                                  { "text_get", h_text_get },   { "text_put", h_text_put },
                                  { "busy", h_busy },           { NULL, NULL } };

int luaopen_perflab_httpd(lua_State *L) {
  luaL_newlib(L, funcs);
  lua_pushstring(L, MHD_get_version());
  lua_setfield(L, -2, "library");
  return 1;
}

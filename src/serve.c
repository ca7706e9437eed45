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
** One Lua state serves every request: a coroutine of the caller's state,
** guarded by one mutex (docs/design-notes.md, "perflab serve": the parsed
** profiles are cached in that state, and a state per worker would hold a
** copy of the cache each).  --timeout applies to each request's work.
** SIGINT and SIGTERM are blocked in every thread and taken by sigwait in
** the caller's: the daemon stops after the request in flight (which is
** interrupted), and serve() returns.
**
** Host layer, like session.c: host.c lists it among the modules.
*/
#include "serve.h"
#include "pl_call.h"
#include "pl_limits.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define MAX_URI 4096
#define MAX_HEADERS 64
#define MAX_ARGS 64

/* ---- path rules (pure) ------------------------------------------------------ */

/* 0 when rel (relative to DIR, '/'-separated, "" is DIR itself) may name a
** file; else the HTTP status to refuse it with and *why. */
static int check_rel(const char *rel, size_t len, const char **why) {
  if (strlen(rel) != len) { *why = "NUL byte in the path"; return 400; }
  if (rel[0] == '/') { *why = "absolute path"; return 403; }
  const char *seg = rel;
  for (size_t i = 0; i <= len; i++) {
    unsigned char c = (unsigned char)rel[i];
    if (c == '/' || c == '\0') {
      size_t n = (size_t)(rel + i - seg);
      if (n == 0 && !(c == '\0' && (i == 0 || rel[i - 1] == '/'))) { *why = "empty path segment"; return 403; }
      if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) { *why = "'.' or '..' in the path"; return 403; }
      seg = rel + i + 1;
    } else if (c < 0x20 || c == 0x7f || c == '\\') { *why = "control byte or backslash in the path"; return 403; }
  }
  return 0;
}

/* ---- the server --------------------------------------------------------------- */

typedef struct server {
  lua_State *T;                 /* the coroutine every request runs on */
  int handler_ref;              /* registry: the Lua handler */
  pthread_mutex_t mu;
  char root[PATH_MAX];          /* realpath of DIR */
  size_t rootlen;
  char token[129];              /* "" when none */
  int loopback;                 /* bound to a loopback address */
  char port_text[16];
  double timeout;               /* per request, seconds (0: none) */
  volatile int stopping;
} server;

static server *the_server;      /* for check() from Lua; one server per process */

/* realpath of DIR/rel, which must stay under DIR.  0 and out filled, or
** an HTTP status (404: no such file; 403: outside DIR or refused). */
static int resolve(const server *s, const char *rel, size_t len, char *out, const char **why) {
  int st = check_rel(rel, len, why);
  if (st) return st;
  char joined[PATH_MAX];
  if ((size_t)snprintf(joined, sizeof joined, "%s/%s", s->root, rel) >= sizeof joined) { *why = "path too long"; return 414; }
  if (realpath(joined, out) == NULL) { *why = errno == EACCES ? "permission denied" : "no such file"; return errno == EACCES ? 403 : 404; }
  if (strncmp(out, s->root, s->rootlen) != 0 || (out[s->rootlen] != '\0' && out[s->rootlen] != '/'
      && !(s->rootlen == 1 && s->root[0] == '/'))) {
    *why = "the path leaves the served folder (a symlink?)";
    return 403;
  }
  return 0;
}

/* per request: the raw URI, as the client sent it (before decoding) */
typedef struct request { char raw[MAX_URI + 1]; int too_long; } request;

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c) {
  (void)cls; (void)c;
  request *r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  size_t n = strlen(uri);
  if (n > MAX_URI) r->too_long = 1;
  else memcpy(r->raw, uri, n + 1);
  return r;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
  (void)cls; (void)c; (void)toe;
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
    if (strncasecmp(host, names[i], n) == 0 && (host[n] == '\0' || (host[n] == ':' && strcmp(host + n + 1, s->port_text) == 0)))
      return 1;
  }
  return 0;
}

typedef struct argv_ctx { lua_State *L; int n; } argv_ctx;

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

/* handler(req) -> status, content_type, body [, filename]: on the request
** coroutine, under the mutex.  Lua-side errors become a 500 page. */
static enum MHD_Result call_lua(server *s, struct MHD_Connection *c, const char *method, const char *url,
                                const char *cookie) {
  pthread_mutex_lock(&s->mu);
  lua_State *T = s->T;
  lua_settop(T, 0);
  lua_pushcfunction(T, pl_msghandler);
  lua_rawgeti(T, LUA_REGISTRYINDEX, s->handler_ref);
  lua_createtable(T, 0, 3);
  lua_pushstring(T, method);
  lua_setfield(T, -2, "method");
  lua_pushstring(T, url);
  lua_setfield(T, -2, "path");
  lua_newtable(T);
  argv_ctx a = { T, 0 };
  MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, push_arg, &a);
  lua_setfield(T, -2, "query");
  if (s->timeout > 0) pl_limit_time(T, s->timeout);
  int st = lua_pcall(T, 1, 4, 1);
  int timed_out = s->timeout > 0 && pl_time_up();
  if (s->timeout > 0) pl_limit_time_clear(T);
  enum MHD_Result ok;
  if (st != LUA_OK && timed_out) {
    /* the spent budget re-raises at every hook, the Lua error page too */
    fprintf(stderr, "perflab serve: %s: time limit exceeded (--timeout)\n", url);
    ok = refuse(c, 503, "this page took longer than --timeout allows");
  } else if (st != LUA_OK) {
    const char *m = lua_tostring(T, -1);
    if (m == NULL && pl_is_fail(T, -1)) { lua_getfield(T, -1, "message"); m = lua_tostring(T, -1); }
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
          snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", fname);   /* fname: [A-Za-z0-9._-] (serve.lua) */
          MHD_add_response_header(r, "Content-Disposition", cd);
        }
        if (cookie) MHD_add_response_header(r, "Set-Cookie", cookie);
        ok = MHD_queue_response(c, status, r);
        MHD_destroy_response(r);
      }
    }
  }
  lua_settop(T, 0);
  pthread_mutex_unlock(&s->mu);
  return ok;
}

static enum MHD_Result count_one(void *cls, enum MHD_ValueKind k, const char *key, const char *v) {
  (void)k; (void)key; (void)v;
  ++*(int *)cls;
  return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
  (void)version; (void)upload_data;
  server *s = cls;
  request *rq = *con_cls;
  if (rq == NULL) return MHD_NO;                                   /* out of memory: drop it */
  if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }   /* body after an answer: discarded */
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
  if (st == 0) { lua_pushstring(L, out); return 1; }
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
  if (st == 0) { lua_pushboolean(L, 1); return 1; }
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
  if (stat(p, &sb) != 0) { luaL_pushfail(L); lua_pushfstring(L, "%s: %s", p, strerror(errno)); return 2; }
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
    if (n < 0) { if (errno == EINTR) continue; return luaL_error(L, "no random bytes for a token: %s", strerror(errno)); }
    got += (size_t)n;
  }
  char hex[49];
  for (size_t i = 0; i < sizeof b; i++) snprintf(hex + 2 * i, 3, "%02x", b[i]);
  lua_pushstring(L, hex);
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

/* serve{root=, host=, port=, token=, timeout=, ready=function(url)}, handler
** -> true when stopped by SIGINT/SIGTERM | nil, message.  Blocks. */
static int h_serve(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  if (the_server) return luaL_error(L, "httpd.serve: a server is already running");
  lua_getfield(L, 1, "root");
  lua_getfield(L, 1, "host");
  lua_getfield(L, 1, "port");
  lua_getfield(L, 1, "token");
  lua_getfield(L, 1, "timeout");
  lua_getfield(L, 1, "ready");                                     /* [o h root host port token timeout ready] */
  const char *root = luaL_checkstring(L, 3);
  const char *host = luaL_optstring(L, 4, "127.0.0.1");
  lua_Integer port = luaL_optinteger(L, 5, 8000);
  const char *token = luaL_optstring(L, 6, "");
  double timeout = luaL_optnumber(L, 7, 0);
  if (port < 0 || port > 65535) return luaL_error(L, "port %d out of range", (int)port);
  if (strlen(token) > 128) return luaL_error(L, "token longer than 128 characters");

  server *s = (server *)lua_newuserdatauv(L, sizeof *s, 0);       /* anchored on this stack while serving */
  memset(s, 0, sizeof *s);
  if (realpath(root, s->root) == NULL) { luaL_pushfail(L); lua_pushfstring(L, "%s: %s", root, strerror(errno)); return 2; }
  s->rootlen = strlen(s->root);
  strcpy(s->token, token);
  s->timeout = timeout;
  s->T = lua_newthread(L);                                         /* anchored on this stack */
  lua_pushvalue(L, 2);
  s->handler_ref = luaL_ref(L, LUA_REGISTRYINDEX);

  char portstr[16];
  snprintf(portstr, sizeof portstr, "%d", (int)port);
  struct addrinfo hints, *ai = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  int gai = getaddrinfo(host, portstr, &hints, &ai);
  if (gai != 0 || ai == NULL) {
    luaL_unref(L, LUA_REGISTRYINDEX, s->handler_ref);
    luaL_pushfail(L);
    lua_pushfstring(L, "cannot resolve --host '%s': %s", host, gai_strerror(gai));
    return 2;
  }
  s->loopback = is_loopback(ai->ai_addr);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
  if (ai->ai_family == AF_INET6) flags |= MHD_USE_IPv6;

  /* SIGINT/SIGTERM: blocked here before the daemon's threads start (they
  ** inherit the mask), taken below by sigwait */
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  signal(SIGPIPE, SIG_IGN);
  pthread_mutex_init(&s->mu, NULL);
  the_server = s;
  struct MHD_Daemon *d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, s,
    MHD_OPTION_SOCK_ADDR, ai->ai_addr,
    MHD_OPTION_URI_LOG_CALLBACK, uri_log, (void *)s,
    MHD_OPTION_NOTIFY_COMPLETED, completed, (void *)s,
    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
    MHD_OPTION_CONNECTION_LIMIT, (unsigned)128,
    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
    MHD_OPTION_END);
  int bind_errno = errno;
  freeaddrinfo(ai);
  if (d == NULL) {
    the_server = NULL;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_destroy(&s->mu);
    luaL_unref(L, LUA_REGISTRYINDEX, s->handler_ref);
    luaL_pushfail(L);
    lua_pushfstring(L, "cannot listen on %s port %s: %s", host, portstr, bind_errno ? strerror(bind_errno) : "libmicrohttpd refused");
    return 2;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  unsigned bound = info ? info->port : (unsigned)port;
  snprintf(s->port_text, sizeof s->port_text, "%u", bound);
  int status = LUA_OK;
  if (!lua_isnil(L, 8)) {                                           /* ready(port): prints the URL */
    pthread_mutex_lock(&s->mu);
    lua_pushvalue(L, 8);
    lua_pushinteger(L, (lua_Integer)bound);
    status = lua_pcall(L, 1, 0, 0);
    pthread_mutex_unlock(&s->mu);
  }
  int sig = 0;
  if (status == LUA_OK) sigwait(&stop, &sig);
  s->stopping = 1;
  pl_call_interrupt(s->T);          /* the request in flight, if any, stops at its next hook */
  MHD_stop_daemon(d);               /* waits for the connection threads */
  the_server = NULL;
  pthread_mutex_destroy(&s->mu);
  luaL_unref(L, LUA_REGISTRYINDEX, s->handler_ref);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (status != LUA_OK) return lua_error(L);
  lua_pushboolean(L, 1);
  lua_pushstring(L, sig == SIGTERM ? "SIGTERM" : "SIGINT");
  return 2;
}

static const luaL_Reg funcs[] = {
  {"serve", h_serve},
  {"check", h_check},
  {"check_rel", h_check_rel},
  {"stat", h_stat},
  {"token", h_token},
  {"memory_in_use", h_memory},
  {NULL, NULL}
};

int luaopen_perflab_httpd(lua_State *L) {
  luaL_newlib(L, funcs);
  lua_pushstring(L, MHD_get_version());
  lua_setfield(L, -2, "library");
  return 1;
}

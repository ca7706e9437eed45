/*
** pl_limits.h -- resource limits for recipes and scripts (--max-memory,
** --timeout, --sandbox): a counting Lua allocator with a cap, an address-
** space limit for the C core's tables, and a time budget enforced by a
** count hook that re-arms itself so a recipe cannot swallow it with pcall.
*/
#ifndef PL_LIMITS_H
#define PL_LIMITS_H
#include <lua.h>
#include <stddef.h>

/* Parses "512M", "2G", "1500000" (bytes; K/M/G/T are powers of 1024).
** Returns 0 and sets *out, or -1. */
int pl_parse_size(const char *s, size_t *out);
/* The default memory cap: 80 % of physical memory. */
size_t pl_default_memory_limit(void);
/* Caps memory at `bytes`: Lua allocations beyond it fail with a Lua
** "not enough memory" error; C-core allocations beyond it end the process
** with exit status 2 and a message naming --max-memory. */
void pl_limit_memory(size_t bytes);
/* The allocator pl_host_newstate uses (counts and caps). */
void *pl_limit_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
size_t pl_memory_in_use(void);
/* Starts a wall-clock budget of `seconds` for the Lua state: past it every
** hook check raises "time limit exceeded" and C parsers stop at their next
** interrupt check. */
void pl_limit_time(lua_State *L, double seconds);
/* 1 once the time budget is spent. */
int pl_time_up(void);

#endif

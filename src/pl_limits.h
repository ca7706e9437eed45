/*
** pl_limits.h -- memory limits for recipes and scripts (--max-memory): a
** counting Lua allocator with a cap, and an address-space limit for the C
** core's tables.  The time budget (--timeout) is in pl_call.h, with the
** other ways a call is stopped.
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
** "not enough memory" error; C-core allocations beyond it go to the core's
** out-of-memory handler (the command line's prints the --max-memory
** advice and exits 2). */
void pl_limit_memory(size_t bytes);
/* The allocator pl_host_newstate uses (counts and caps). */
void *pl_limit_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
size_t pl_memory_in_use(void);

#endif

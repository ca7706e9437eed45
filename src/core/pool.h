/*
** pool.h -- the interned string pool (pool.c): each distinct byte string
** is stored once and named by a 32-bit id (0: none).  A table's string
** columns hold ids into the table's pool; derived tables share the pool of
** their source (reference counted).  table.h includes this header.
*/
#ifndef PL_POOL_H
#define PL_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct pl_pool pl_pool;
pl_pool *pl_pool_new(void);
void pl_pool_retain(pl_pool *p);
void pl_pool_release(pl_pool *p);
/* Returns the id (>= 1) of the string s[0..n); the same bytes give the same id. */
uint32_t pl_pool_intern(pl_pool *p, const char *s, size_t n);
/* The string of an id (NUL-terminated); NULL for id 0. */
const char *pl_pool_str(const pl_pool *p, uint32_t id, size_t *len);
/* A hint that s[0..n) is about to be interned: starts loading its slot. */
void pl_pool_prefetch(const pl_pool *p, const char *s, size_t n);
/* The same in two steps, for a caller that looks a string up later: its
** hash (tag, key) once, the prefetch of its slot, then the intern with the
** hash given (the string must be the same bytes). */
uint32_t pl_pool_key(const char *s, size_t n, uint64_t *key);
void pl_pool_prefetch_tag(const pl_pool *p, uint32_t tag);
uint32_t pl_pool_intern_key(pl_pool *p, const char *s, size_t n, uint32_t tag, uint64_t key);
size_t pl_pool_count(const pl_pool *p);
size_t pl_pool_bytes(const pl_pool *p);
/* The pool's heap memory in use: its blocks' strings, its hash table and
** its id array (a block's unwritten tail is left out: a large allocation's
** untouched pages take no memory). */
size_t pl_pool_memory(const pl_pool *p);

#endif

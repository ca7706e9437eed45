/*
** bigmem.h -- memory for big arrays (table columns, the critical path's
** graph), with a small cache of freed large blocks that the next big
** allocations draw from.
**
** A block of PL_MEM_BIG bytes or more is a mapping of its own; freed, it
** stays mapped (its pages resident) in the cache, and the next large
** request takes it instead of fresh pages: a fresh page costs a fault and
** the kernel clearing it, about as much as the work a column operation does
** on it (a 1 GB trace's critical path: a quarter of its cycles).  Smaller
** blocks are malloc's.  Every block carries a header: free and grow them
** only with pl_mem_free and pl_mem_realloc, never free()/realloc().
**
** Under AddressSanitizer every block is malloc's, so that it keeps
** checking the big arrays.  Thread safe (one lock around the cache).
*/
#ifndef PL_BIGMEM_H
#define PL_BIGMEM_H

#include <stddef.h>
#include <stdint.h>

#define PL_MEM_BIG ((size_t)1 << 20)

/* NULL without memory (errno as malloc's); n == 0 gives a valid block. */
void *pl_mem_alloc(size_t n);
void *pl_mem_calloc(size_t n, size_t sz); /* zeroed; NULL also where n * sz overflows */
void *pl_mem_realloc(void *p, size_t n);  /* as realloc: p kept where this fails */
void pl_mem_free(void *p);

/* The checked forms (pl_util.h's rule): only return with memory. */
void *pl_mem_xalloc(size_t n);
void *pl_mem_xcalloc(size_t n, size_t sz);
void *pl_mem_xrealloc(void *p, size_t n);

/* Transparent huge pages for the whole of p's block, where it is a big one
** of 4 MB or more (advising part of a block would split its mapping, and
** a mapping in parts cannot grow in place). */
void pl_mem_hugepages(void *p);

/* A block of n bytes whose every 8-byte word reads as `pattern` (a
** column's missing marker: NaN's bits, INT64_MIN) and that costs no
** memory until written: its pages are the system's (the zero page for
** pattern 0, else one small shared file holding the pattern, mapped
** copy-on-write), and a write copies in only the 4 KiB page it falls in.
** pl_mem_realloc keeps such a block's bytes and what it grows by reads as
** the pattern (where the system is out of mappings it becomes an ordinary
** block, the pattern written into it: pl_mem_fills tells); pl_mem_free
** unmaps it (it never enters the cache).  NULL where the system cannot
** (a sanitizer build, no memfd_create, out of mappings): the caller then
** writes the pattern into an ordinary block.  Reading it maps the shared
** pages, which the system counts in the reader's RSS (RssShmem) though
** they take no memory of the process's own. */
void *pl_mem_alloc_fill(size_t n, uint64_t pattern);
/* Whether p (a pl_mem block or NULL) is such a block. */
int pl_mem_fills(const void *p);

/* What the cache holds: blocks and bytes (for tests and measurements). */
void pl_mem_cache_stats(size_t *blocks, size_t *bytes);
/* Unmaps every cached block. */
void pl_mem_cache_drop(void);

#endif

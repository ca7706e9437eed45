/*
** pool.c -- interned string pool: each distinct byte string is stored once
** (in large arena blocks, so pointers stay valid) and named by a 32-bit id.
** Lookup is an open-addressing hash table of ids.  Reference counted so that
** derived tables share the pool of their source.
*/
#include "table.h"

#include <stdlib.h>
#include <string.h>

#define POOL_BLOCK (1u << 20)

typedef struct pool_block { struct pool_block *next; size_t used, cap; char data[]; } pool_block;

struct pl_pool {
  int refs;
  const char **str;         /* id -> string (id 0 unused) */
  uint32_t *slen;
  uint32_t *hash;           /* id -> hash */
  size_t n, cap;            /* ids in use (including 0) */
  uint32_t *slots;          /* hash table of ids, 0 = empty */
  size_t nslots;
  pool_block *blocks;
  size_t bytes;
};

static uint32_t pool_hash(const char *s, size_t n) {
  /* FNV-1a over 8 bytes at a time is enough here; strings are short. */
  uint64_t h = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  h ^= h >> 32;
  return (uint32_t)h;
}

pl_pool *pl_pool_new(void) {
  pl_pool *p = pl_xcalloc(1, sizeof *p);
  p->refs = 1;
  p->cap = 64;
  p->str = pl_xcalloc(p->cap, sizeof *p->str);
  p->slen = pl_xcalloc(p->cap, sizeof *p->slen);
  p->hash = pl_xcalloc(p->cap, sizeof *p->hash);
  p->n = 1;
  p->nslots = 128;
  p->slots = pl_xcalloc(p->nslots, sizeof *p->slots);
  return p;
}

void pl_pool_retain(pl_pool *p) { if (p) p->refs++; }

void pl_pool_release(pl_pool *p) {
  if (p == NULL || --p->refs > 0) return;
  pool_block *b = p->blocks;
  while (b) { pool_block *nx = b->next; free(b); b = nx; }
  free(p->str); free(p->slen); free(p->hash); free(p->slots);
  free(p);
}

static char *pool_store(pl_pool *p, const char *s, size_t n) {
  pool_block *b = p->blocks;
  if (b == NULL || b->cap - b->used < n + 1) {
    size_t cap = n + 1 > POOL_BLOCK ? n + 1 : POOL_BLOCK;
    if (b && b->used < b->cap / 2 && n + 1 > POOL_BLOCK / 4) {
      /* a huge string: give it its own block behind the current one */
      pool_block *nb = pl_xmalloc(sizeof *nb + n + 1);
      nb->cap = n + 1; nb->used = n + 1;
      nb->next = b->next; b->next = nb;
      memcpy(nb->data, s, n); nb->data[n] = '\0';
      return nb->data;
    }
    b = pl_xmalloc(sizeof *b + cap);
    b->cap = cap; b->used = 0; b->next = p->blocks; p->blocks = b;
  }
  char *d = b->data + b->used;
  memcpy(d, s, n); d[n] = '\0';
  b->used += n + 1;
  return d;
}

static void pool_rehash(pl_pool *p) {
  size_t ns = p->nslots * 2;
  uint32_t *slots = pl_xcalloc(ns, sizeof *slots);
  for (size_t id = 1; id < p->n; id++) {
    size_t i = p->hash[id] & (ns - 1);
    while (slots[i]) i = (i + 1) & (ns - 1);
    slots[i] = (uint32_t)id;
  }
  free(p->slots);
  p->slots = slots; p->nslots = ns;
}

uint32_t pl_pool_intern(pl_pool *p, const char *s, size_t n) {
  if (n > UINT32_MAX - 1) n = UINT32_MAX - 1;
  uint32_t h = pool_hash(s, n);
  size_t mask = p->nslots - 1, i = h & mask;
  for (;;) {
    uint32_t id = p->slots[i];
    if (id == 0) break;
    if (p->hash[id] == h && p->slen[id] == n && memcmp(p->str[id], s, n) == 0) return id;
    i = (i + 1) & mask;
  }
  if (p->n == p->cap) {
    p->cap *= 2;
    p->str = pl_xrealloc(p->str, p->cap * sizeof *p->str);
    p->slen = pl_xrealloc(p->slen, p->cap * sizeof *p->slen);
    p->hash = pl_xrealloc(p->hash, p->cap * sizeof *p->hash);
  }
  uint32_t id = (uint32_t)p->n++;
  p->str[id] = pool_store(p, s, n);
  p->slen[id] = (uint32_t)n;
  p->hash[id] = h;
  p->bytes += n + 1;
  p->slots[i] = id;
  if (p->n * 2 > p->nslots) pool_rehash(p);
  return id;
}

const char *pl_pool_str(const pl_pool *p, uint32_t id, size_t *len) {
  if (id == 0 || id >= p->n) { if (len) *len = 0; return NULL; }
  if (len) *len = p->slen[id];
  return p->str[id];
}

size_t pl_pool_count(const pl_pool *p) { return p->n - 1; }
size_t pl_pool_bytes(const pl_pool *p) { return p->bytes; }

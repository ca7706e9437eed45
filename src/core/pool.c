/*
** pool.c -- interned string pool: each distinct byte string is stored once
** (in large arena blocks, so pointers stay valid) and named by a 32-bit id.
** Lookup is an open-addressing hash table whose slots hold the string's
** hash next to its id and, for strings of up to 7 bytes, the bytes
** themselves: a probe for a short string never leaves the table, a longer
** one touches the string only when the hash and first 8 bytes agree.  Each stored string is preceded in its block by its length
** (4 bytes), so a hit reads the id's pointer and the string, nothing else.
** Reference counted so that derived tables share the pool of their source.
*/
#include "pool.h"
#include "pl_util.h"

#include <stdlib.h>
#include <string.h>

#define POOL_BLOCK (1u << 20)
#define POOL_HDR   4u /* the length in front of each string */

typedef struct pool_block {
  struct pool_block *next;
  size_t used, cap;
  char data[];
} pool_block;

typedef struct pool_slot {
  uint32_t tag; /* the hash; bit 0: the string is short (<= 7 bytes) */
  uint32_t id;
  uint64_t key; /* short: the bytes and the length << 56; else the first 8 bytes */
} pool_slot;

struct pl_pool {
  int refs;
  const char **str; /* id -> string (id 0 unused); its length is at str - POOL_HDR */
  size_t n, cap;    /* ids in use (including 0) */
  pool_slot *slots; /* hash table, id 0 = empty */
  size_t nslots;
  pool_block *blocks;
  size_t bytes;
};

static inline uint64_t rd64(const char *s) {
  uint64_t w;
  memcpy(&w, s, 8);
  return w;
}
static inline uint32_t rd32(const char *s) {
  uint32_t w;
  memcpy(&w, s, 4);
  return w;
}

/* 64 x 64 -> 128 bit multiply, folded: the mixing step of the hash. */
static inline uint64_t mum(uint64_t a, uint64_t b) {
#ifdef __SIZEOF_INT128__
  __uint128_t r = (__uint128_t)a * b;
  return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
  uint64_t ha = a >> 32, la = (uint32_t)a, hb = b >> 32, lb = (uint32_t)b;
  uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb;
  uint64_t t = rl + (rm0 << 32), c = t < rl;
  uint64_t lo = t + (rm1 << 32);
  c += lo < t;
  uint64_t hi = rh + (rm0 >> 32) + (rm1 >> 32) + c;
  return lo ^ hi;
#endif
}

#define K0 0xa0761d6478bd642full
#define K1 0xe7037ed1a0b428dbull
#define K2 0x8ebc6af09c88c6e3ull

/* Reads only s[0..n): short strings with (overlapping) whole-word loads. */
static uint32_t pool_hash(const char *s, size_t n) {
  uint64_t a, b, seed = K0 ^ (uint64_t)n;
  if (n <= 16) {
    if (n >= 8) {
      a = rd64(s);
      b = rd64(s + n - 8);
    } else if (n >= 4) {
      a = rd32(s);
      b = rd32(s + n - 4);
    } else if (n > 0) {
      a = ((uint64_t)(unsigned char)s[0] << 16) | ((uint64_t)(unsigned char)s[n >> 1] << 8) | (unsigned char)s[n - 1];
      b = 0;
    } else a = b = 0;
  } else {
    size_t i = 0;
    for (; i + 16 < n; i += 16) seed = mum(rd64(s + i) ^ K1, rd64(s + i + 8) ^ seed);
    a = rd64(s + n - 16);
    b = rd64(s + n - 8);
  }
  uint64_t h = mum(a ^ K1, b ^ seed ^ K2);
  h = mum(h ^ K0, (uint64_t)n ^ K1);
  return (uint32_t)(h ^ (h >> 32));
}

/* The slot tag and key of s[0..n). */
static inline uint32_t pool_key(const char *s, size_t n, uint64_t *key) {
  uint32_t h = pool_hash(s, n);
  if (n <= 7) {
    uint64_t k = 0;
    if (n >= 4) k = (uint64_t)rd32(s) | (uint64_t)rd32(s + n - 4) << ((n - 4) * 8);
    else
      for (size_t i = 0; i < n; i++) k |= (uint64_t)(unsigned char)s[i] << (i * 8);
    *key = k | (uint64_t)n << 56;
    return h | 1u;
  }
  *key = rd64(s);
  return h & ~1u;
}

static inline uint32_t str_len(const char *s) { return rd32(s - POOL_HDR); }

pl_pool *pl_pool_new(void) {
  pl_pool *p = pl_xcalloc(1, sizeof *p);
  p->refs = 1;
  p->cap = 64;
  p->str = pl_xcalloc(p->cap, sizeof *p->str);
  p->n = 1;
  p->nslots = 128;
  p->slots = pl_xcalloc(p->nslots, sizeof *p->slots);
  return p;
}

void pl_pool_retain(pl_pool *p) {
  if (p) p->refs++;
}

void pl_pool_release(pl_pool *p) {
  if (p == NULL || --p->refs > 0) return;
  pool_block *b = p->blocks;
  while (b) {
    pool_block *nx = b->next;
    free(b);
    b = nx;
  }
  free(p->str);
  free(p->slots);
  free(p);
}

static char *pool_store(pl_pool *p, const char *s, size_t n) {
  uint32_t len = (uint32_t)n;
  size_t need = n + 1 + POOL_HDR;
  pool_block *b = p->blocks;
  char *d;
  if (b == NULL || b->cap - b->used < need) {
    size_t cap = need > POOL_BLOCK ? need : POOL_BLOCK;
    if (b && b->used < b->cap / 2 && need > POOL_BLOCK / 4) {
      /* a huge string: give it its own block behind the current one */
      pool_block *nb = pl_xmalloc(sizeof *nb + need);
      nb->cap = need;
      nb->used = need;
      nb->next = b->next;
      b->next = nb;
      d = nb->data;
      memcpy(d, &len, POOL_HDR);
      memcpy(d + POOL_HDR, s, n);
      d[POOL_HDR + n] = '\0';
      return d + POOL_HDR;
    }
    b = pl_xmalloc(sizeof *b + cap);
    b->cap = cap;
    b->used = 0;
    b->next = p->blocks;
    p->blocks = b;
  }
  d = b->data + b->used;
  memcpy(d, &len, POOL_HDR);
  memcpy(d + POOL_HDR, s, n);
  d[POOL_HDR + n] = '\0';
  b->used += need;
  return d + POOL_HDR;
}

/* The slot table doubled.  Ordinary pages (calloc: fresh ones need no
** memset), no huge pages: on the build VM a 2 MiB page costs 5-7 times as
** much per byte to fault in as 4 KiB pages (docs/design-notes.md). */
static void pool_rehash(pl_pool *p) {
  size_t ns = p->nslots * 2, mask = ns - 1;
  pool_slot *slots = pl_xcalloc(ns, sizeof *slots);
  for (size_t k = 0; k < p->nslots; k++) {
    const pool_slot *e = &p->slots[k];
    if (e->id == 0) continue;
    size_t i = e->tag & mask;
    while (slots[i].id) i = (i + 1) & mask;
    slots[i] = *e;
  }
  free(p->slots);
  p->slots = slots;
  p->nslots = ns;
}

uint32_t pl_pool_key(const char *s, size_t n, uint64_t *key) {
  if (n > UINT32_MAX - 1) n = UINT32_MAX - 1;
  return pool_key(s, n, key);
}

void pl_pool_prefetch_tag(const pl_pool *p, uint32_t tag) {
#if defined(__GNUC__)
  __builtin_prefetch(&p->slots[tag & (p->nslots - 1)]);
#else
  (void)p;
  (void)tag;
#endif
}

uint32_t pl_pool_intern(pl_pool *p, const char *s, size_t n) {
  if (n > UINT32_MAX - 1) n = UINT32_MAX - 1;
  uint64_t key;
  uint32_t tag = pool_key(s, n, &key);
  return pl_pool_intern_key(p, s, n, tag, key);
}

uint32_t pl_pool_intern_key(pl_pool *p, const char *s, size_t n, uint32_t tag, uint64_t key) {
  if (n > UINT32_MAX - 1) n = UINT32_MAX - 1;
  size_t mask = p->nslots - 1, i = tag & mask;
  for (;;) {
    const pool_slot *e = &p->slots[i];
    if (e->id == 0) break;
    if (e->tag == tag && e->key == key) {
      if (tag & 1u) return e->id; /* short: the key is the string */
      const char *t = p->str[e->id];
      if (str_len(t) == n && memcmp(t + 8, s + 8, n - 8) == 0) return e->id;
    }
    i = (i + 1) & mask;
  }
  if (p->n == p->cap) {
    p->cap *= 2;
    p->str = pl_xrealloc(p->str, p->cap * sizeof *p->str);
  }
  uint32_t id = (uint32_t)p->n++;
  p->str[id] = pool_store(p, s, n);
  p->bytes += n + 1;
  p->slots[i].tag = tag;
  p->slots[i].id = id;
  p->slots[i].key = key;
  if (p->n * 2 > p->nslots) pool_rehash(p);
  return id;
}

void pl_pool_prefetch(const pl_pool *p, const char *s, size_t n) {
#if defined(__GNUC__)
  uint64_t key;
  uint32_t tag = pool_key(s, n, &key);
  __builtin_prefetch(&p->slots[tag & (p->nslots - 1)]);
#else
  (void)p;
  (void)s;
  (void)n;
#endif
}

const char *pl_pool_str(const pl_pool *p, uint32_t id, size_t *len) {
  if (id == 0 || id >= p->n) {
    if (len) *len = 0;
    return NULL;
  }
  const char *s = p->str[id];
  if (len) *len = str_len(s);
  return s;
}

size_t pl_pool_count(const pl_pool *p) { return p->n - 1; }
size_t pl_pool_bytes(const pl_pool *p) { return p->bytes; }

size_t pl_pool_memory(const pl_pool *p) {
  size_t m = sizeof *p + p->cap * sizeof *p->str + p->nslots * sizeof *p->slots;
  for (const pool_block *b = p->blocks; b; b = b->next) m += sizeof *b + b->used;
  return m;
}
